import { describe, expect, test } from "vitest";
import { deploymentCheck, isLocalAddress, loadConfig } from "../../server/config.ts";

/**
 * A real deployment cannot keep the test defaults by accident (issue 14, finding 1; decision 023):
 * where PUBLIC_URL is not a local address, the sandbox identity provider, the built-in test bank
 * details and mail kept only in the database each need an explicit setting, or the server refuses
 * to start. On a developer's machine nothing needs setting; the sandbox is always announced.
 */

const SUMSUB = { SUMSUB_APP_TOKEN: "app-token", SUMSUB_SECRET_KEY: "secret-key", SUMSUB_WEBHOOK_SECRET: "hook" };
const BANK = {
  COMPANY_BANK_NAME: "Commerzbank",
  COMPANY_BANK_ACCOUNT_NAME: "Example Payments Ltd Client Account",
  COMPANY_BANK_IBAN: "DE89370400440532013000",
  COMPANY_BANK_BIC: "COBADEFFXXX",
  COMPANY_BANK_SORT_CODE: "40-47-84",
  COMPANY_BANK_ACCOUNT_NUMBER: "70872490",
};
const MAIL = { SMTP_URL: "smtp://mail.example.com:587" };
const REAL = { PUBLIC_URL: "https://portal.example.com", APP_ENV: "production", ...SUMSUB, ...BANK, ...MAIL };

describe("which addresses are a developer's machine", () => {
  test.each([
    "http://localhost:8000",
    "http://127.0.0.1:8123",
    "http://[::1]:8000",
    "http://portal.localhost",
    "https://LOCALHOST",
  ])("%s is local", (url) => expect(isLocalAddress(url)).toBe(true));

  test.each([
    "https://portal.example.com",
    "http://10.0.0.5:8000",
    "http://localhost.example.com",
    "http://192.168.1.20",
    "https://127.0.0.1.nip.io",
  ])("%s is not", (url) => expect(isLocalAddress(url)).toBe(false));
});

describe("a developer's machine: `deno task start` with nothing set", () => {
  test("starts, and says loudly that the sandbox runs and that mail and bank details are test ones", () => {
    const { errors, warnings } = deploymentCheck({});
    expect(errors).toEqual([]);
    expect(warnings.join("\n")).toMatch(/SANDBOX identity provider/);
    expect(warnings.join("\n")).toMatch(/COMPANY_BANK_/);
    expect(warnings.join("\n")).toMatch(/SMTP_URL/);
  });

  test("the same with APP_ENV=production on localhost (task start sets it)", () => {
    expect(deploymentCheck({ APP_ENV: "production", PORT: "8080" }).errors).toEqual([]);
  });
});

describe("a real deployment (PUBLIC_URL not local)", () => {
  test("with every real setting: starts, nothing to warn about", () => {
    expect(deploymentCheck(REAL)).toEqual({ errors: [], warnings: [] });
    expect(loadConfig(REAL).sumsub).not.toBeNull();
  });

  test("without Sumsub settings: refuses to start, naming the settings and the explicit way out", () => {
    const { SUMSUB_APP_TOKEN: _t, SUMSUB_SECRET_KEY: _k, SUMSUB_WEBHOOK_SECRET: _w, ...env } = REAL;
    const { errors } = deploymentCheck(env);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/SUMSUB_APP_TOKEN and SUMSUB_SECRET_KEY/);
    expect(errors[0]).toMatch(/IDENTITY_PROVIDER=sandbox/);
    expect(errors[0]).toMatch(/https:\/\/portal\.example\.com/);
  });

  test("only one of the two Sumsub keys is the same refusal", () => {
    expect(deploymentCheck({ ...REAL, SUMSUB_SECRET_KEY: "" }).errors[0]).toMatch(/SUMSUB_APP_TOKEN/);
  });

  test("IDENTITY_PROVIDER=sandbox set explicitly: starts with the sandbox, announced", () => {
    const env = { ...REAL, SUMSUB_APP_TOKEN: "", SUMSUB_SECRET_KEY: "", IDENTITY_PROVIDER: "sandbox" };
    const { errors, warnings } = deploymentCheck(env);
    expect(errors).toEqual([]);
    expect(warnings.join("\n")).toMatch(/SANDBOX identity provider/);
    expect(loadConfig(env).identityProvider).toBe("sandbox");
  });

  test("IDENTITY_PROVIDER=sandbox wins over Sumsub settings, and says so", () => {
    const env = { ...REAL, IDENTITY_PROVIDER: "sandbox" };
    expect(loadConfig(env).sumsub).toBeNull();
    expect(deploymentCheck(env).warnings.join("\n")).toMatch(/SANDBOX identity provider/);
  });

  test("IDENTITY_PROVIDER=sumsub without its keys is refused even on a developer's machine", () => {
    expect(deploymentCheck({ IDENTITY_PROVIDER: "sumsub" }).errors[0]).toMatch(/SUMSUB_APP_TOKEN/);
  });

  test("an unknown IDENTITY_PROVIDER or MAIL is refused", () => {
    expect(deploymentCheck({ ...REAL, IDENTITY_PROVIDER: "onfido" }).errors[0]).toMatch(
      /IDENTITY_PROVIDER must be sumsub or sandbox/,
    );
    expect(deploymentCheck({ ...REAL, MAIL: "postfix" }).errors[0]).toMatch(/MAIL must be smtp or database/);
  });

  test("with any COMPANY_BANK_* unset: refuses, naming the unset ones", () => {
    const { COMPANY_BANK_IBAN: _i, COMPANY_BANK_SORT_CODE: _s, ...env } = REAL;
    const { errors } = deploymentCheck(env);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/COMPANY_BANK_IBAN, COMPANY_BANK_SORT_CODE/);
    expect(errors[0]).toMatch(/ALLOW_TEST_BANK_DETAILS=1/);
  });

  test("ALLOW_TEST_BANK_DETAILS=1: starts with the test details, announced", () => {
    const env = {
      PUBLIC_URL: REAL.PUBLIC_URL,
      APP_ENV: "production",
      ...SUMSUB,
      ...MAIL,
      ALLOW_TEST_BANK_DETAILS: "1",
    };
    const { errors, warnings } = deploymentCheck(env);
    expect(errors).toEqual([]);
    expect(warnings.join("\n")).toMatch(/COMPANY_BANK_/);
  });

  test("without SMTP_URL: refuses unless MAIL=database", () => {
    const { SMTP_URL: _, ...env } = REAL;
    expect(deploymentCheck(env).errors[0]).toMatch(/SMTP_URL/);
    expect(deploymentCheck(env).errors[0]).toMatch(/MAIL=database/);
    const explicit = deploymentCheck({ ...env, MAIL: "database" });
    expect(explicit.errors).toEqual([]);
    expect(explicit.warnings.join("\n")).toMatch(/kept in the database/);
  });

  test("MAIL=database wins over SMTP_URL; MAIL=smtp without SMTP_URL is refused anywhere", () => {
    expect(loadConfig({ ...REAL, MAIL: "database" }).smtpUrl).toBeUndefined();
    expect(deploymentCheck({ MAIL: "smtp" }).errors[0]).toMatch(/SMTP_URL/);
  });

  test("all three at once: three refusals, one per setting", () => {
    expect(deploymentCheck({ PUBLIC_URL: "https://portal.example.com", APP_ENV: "production" }).errors)
      .toHaveLength(3);
  });

  test("APP_ENV does not decide it: a test-named environment on a public address is refused too", () => {
    expect(deploymentCheck({ APP_ENV: "development", PUBLIC_URL: "https://staging.example.com" }).errors)
      .toHaveLength(4);
  });

  test("a public address outside production is refused: cookies without Secure, /dev/api, emails kept as files", () => {
    for (const appEnv of ["test", "development", undefined]) {
      const { APP_ENV: _, ...rest } = REAL;
      const env = appEnv ? { ...rest, APP_ENV: appEnv } : rest;
      expect(deploymentCheck(env).errors).toEqual([
        expect.stringMatching(
          new RegExp(`^APP_ENV is ${appEnv ?? "development"}: PUBLIC_URL is https://portal\\.example\\.com`),
        ),
      ]);
    }
    // NODE_ENV=production alone makes it production, as loadConfig reads it.
    const { APP_ENV: _, ...rest } = REAL;
    expect(deploymentCheck({ ...rest, NODE_ENV: "production" }).errors).toEqual([]);
    // A test harness on a developer's machine may run as test.
    expect(deploymentCheck({ APP_ENV: "test", PUBLIC_URL: "http://127.0.0.1:8123" }).errors).toEqual([]);
  });

  test("Sumsub without its webhook's secret starts, and says that results then wait for the customer's return", () => {
    const { SUMSUB_WEBHOOK_SECRET: _, ...noHook } = REAL;
    expect(deploymentCheck(noHook)).toEqual({
      errors: [],
      warnings: [expect.stringMatching(/^SUMSUB_WEBHOOK_SECRET is not set: Sumsub's webhook is refused/)],
    });
  });

  test("TEST_MAIL_OUTBOX, which keeps sign-in codes as sent, is refused; on a developer's machine a benchmark may use it", () => {
    const kept = { ...REAL, TEST_MAIL_OUTBOX: "/tmp/portal.db.outbox" };
    expect(deploymentCheck(kept).errors).toEqual([expect.stringMatching(/TEST_MAIL_OUTBOX keeps every email as sent/)]);
    expect(deploymentCheck({ APP_ENV: "production", TEST_MAIL_OUTBOX: "/tmp/portal.db.outbox" }).errors).toEqual([]);
  });
});
