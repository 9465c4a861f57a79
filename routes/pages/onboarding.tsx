import type { Context } from "hono";
import { UTM_PARAMS, withAttribution } from "../../lib/attribution.ts";
import { usePage } from "../../server/render/page-context.ts";
import { customerOf } from "../../server/accounts/current.ts";
import { hasAdministrator } from "../../server/auth/setup.ts";
import { resetLinkWorks } from "../../server/auth/password-reset.ts";
import { registrationOf } from "../../server/auth/registration-cookie.ts";
import { CONFIRMED_SIGN_IN, confirmedElsewhere } from "../../server/auth/registration.ts";
import { flash } from "../../server/render/flash.ts";
import { hasAuthenticator } from "../../server/auth/users.ts";
import type { AppEnv } from "../../server/env.ts";
import { readStoredResult } from "../../server/identity/store.ts";
import { COUNTRIES } from "../../server/profile/schema.ts";
import {
  IDENTITY_BOUND_FIELD,
  IDENTITY_BOUND_NOTE,
  identityCheckStarted,
  savedProfile,
} from "../../server/profile/store.ts";
import { migratedProfile } from "../../server/migrations/prefill.ts";
import {
  BusinessProfileForm,
  ForgotForm,
  IdentityCheck,
  LoginForm,
  PasswordSettings,
  PersonalProfileForm,
  RegisterForm,
  SecondFactorForm,
  SetupForm,
  TotpSettings,
  VerifyForm,
} from "../islands.ts";
import { profileValues } from "../../lib/profile-values.ts";
import { IDENTITY_CHECK_IS_THEIRS } from "../../lib/contracts/onboarding.ts";
import { PageTitle, SignOut } from "../layouts/parts.tsx";

/** The screens of the sign-in journey: each a title, a short lead, and its island with the data it needs. */

export function SignInCard() {
  const { path } = usePage();
  return (
    <section aria-labelledby="sign-in" className="card">
      <h2 id="sign-in" className="text-xl font-semibold">Sign in</h2>
      <div className="mt-4">
        <LoginForm registerHref={withAttribution("/register", path)} />
      </div>
    </section>
  );
}

export async function SetupPage(c: Context<AppEnv>) {
  const done = await hasAdministrator(c.get("db"));
  if (done) c.status(403);
  return (
    <section className="mx-auto max-w-md">
      <PageTitle lead="Create the first administrator of this portal.">Set up the portal</PageTitle>
      <div className="card">
        <SetupForm done={done} />
      </div>
    </section>
  );
}

export async function ForgotPage(c: Context<AppEnv>) {
  const token = c.req.query("token") ?? null;
  const username = c.req.query("username") ?? null;
  // A used or expired link says so at once, with the offer of a new one (decision 039).
  const expired = !!token && !(username && await resetLinkWorks(
    { db: c.get("db"), verifications: c.get("services").verifications },
    username,
    token,
  ));
  const choosing = !!token && !expired;
  // An administrator's invitation opens this page too (decision 044): the same form, its own title.
  const invited = choosing && c.req.query("invited") === "1";
  return (
    <section className="mx-auto max-w-md">
      <PageTitle lead={choosing ? "Choose a new password." : "We will email you a link to choose a new password."}>
        {invited ? "Choose your password" : "Forgotten password"}
      </PageTitle>
      <div className="card">
        <ForgotForm token={choosing ? token : null} username={username} expired={expired} />
      </div>
    </section>
  );
}

export function RegisterPage(c: Context<AppEnv>) {
  // Marketing attribution: the utm_* of the address the visitor arrived with, and where. Only the
  // address: the page is kept for every visitor (decision 069), so the referring site, which the
  // request's Referer would say, is read by the form in the browser (document.referrer).
  const attribution: Record<string, string> = {};
  for (const key of UTM_PARAMS) {
    const value = c.req.query(key);
    if (value) attribution[key] = value.slice(0, 500);
  }
  attribution.landing_path = (c.req.path + new URL(c.req.url).search).slice(0, 500);
  const referralCode = c.req.query("ref") ?? c.req.query("referral_code") ?? null;
  return (
    <>
      <PageTitle lead="It takes a few minutes: your email, your details, and a check of your identity.">
        Open an account
      </PageTitle>
      <RegisterForm referralCode={referralCode} attribution={attribution} />
    </>
  );
}

/** A validation link as the email has it, to come back to after signing out (`POST /logout` next). */
export const isValidationLink = (path: string) => /^\/verify\?token=[A-Za-z0-9_-]{1,200}$/.test(path);

/**
 * /verify for someone signed in whose address is confirmed: on to /auth, unless the link is another
 * person's (someone registered at a computer where another is still signed in, and opened it there).
 * Going on to the signed-in person's account left that link unopened with nothing said; instead the
 * page says whose browser it is, and offers to sign out and open the link again, as an invitation
 * opened by the wrong person does (decision 082). The address the link confirms is not named.
 */
export async function VerifyPageSignedIn(c: Context<AppEnv>, username: string, userId: number) {
  const token = c.req.query("token") ?? "";
  const owner = token ? await c.get("services").verifications.ownerOfLink("email-validation", token) : null;
  if (owner === null || owner === userId) return c.redirect("/auth");
  return (
    <section>
      <PageTitle>Verify your email</PageTitle>
      <p role="alert" className="mb-4">
        {`You are signed in as ${username}. This link confirms another email address: sign out, then open the link again.`}
      </p>
      <SignOut next={`/verify?token=${token}`} label="Sign out and open the link" />
    </section>
  );
}

export async function VerifyPage(c: Context<AppEnv>) {
  const user = c.get("user");
  const { secretBox, now } = c.get("services");
  // Right after registering nobody is signed in: the browser's registration says where the link went.
  const registration = user ? null : await registrationOf(c, secretBox, now());
  // The link was opened on another device since this browser registered: there is nothing left to
  // confirm here, and the registration signs nobody in (decision 077): on to sign in, told why, each
  // time /verify is opened (the registration is kept until it lapses or someone registers again).
  if (!user && await confirmedElsewhere({ db: c.get("db") }, registration) !== null) {
    flash(c, CONFIRMED_SIGN_IN);
    return c.redirect("/");
  }
  const email = user?.username ?? registration?.email ?? null;
  return (
    <>
      {/* Where the email went is said once, by the form (issue 15). */}
      <PageTitle>Verify your email</PageTitle>
      {/* signedIn: this browser may ask for a new link, through its session or its registration. */}
      <VerifyForm token={c.req.query("token") ?? null} email={email} signedIn={!!email} />
      {
        /* An address mistyped when registering gets no mail, and a new link would go the same way:
          the way on is an account opened with the right one. */
      }
      {email && !c.req.query("token")
        ? (
          <p className="mt-4 text-sm text-neutral-700 dark:text-neutral-300">
            Not your address?{" "}
            <a href="/register" className="font-medium text-primary-700 underline dark:text-primary-300">
              Open an account with the right one
            </a>.
          </p>
        )
        : null}
    </>
  );
}

export async function ProfilePage(c: Context<AppEnv>, type: "Personal" | "Business") {
  // A customer migrated from the old system starts from what it knew of them (decision 049).
  const saved = await savedProfile(c.get("db"), customerOf(c)!.id) ??
    await migratedProfile(c.get("db"), customerOf(c)!.id);
  const Form = type === "Business" ? BusinessProfileForm : PersonalProfileForm;
  const bound = await identityCheckStarted(c.get("db"), customerOf(c)!.id);
  return (
    <>
      <PageTitle lead="We are required by law to know who our customers are. Your answers are kept confidential.">
        {type === "Business" ? "About your business" : "About you"}
      </PageTitle>
      {bound
        ? (
          // The save refuses a change of these (decision 085): said before the customer tries.
          <p
            role="note"
            className="mb-6 rounded-md border-l-4 border-amber-500 bg-amber-50 p-4 text-sm text-amber-950 dark:border-amber-400 dark:bg-amber-950 dark:text-amber-50"
          >
            {IDENTITY_BOUND_NOTE(c.get("config").supportEmail, type)}
          </p>
        )
        : null}
      {/* Each type has its own island: the page loads the form of its type only. */}
      <Form
        countries={COUNTRIES.map((c) => ({ code: c.code, name: c.name, postcode: c.postcode }))}
        values={profileValues(type, saved)}
        // Shown read-only from then, so that the customer is not let to type a change the save refuses.
        bound={bound ? IDENTITY_BOUND_FIELD(c.get("config").supportEmail) : undefined}
      />
    </>
  );
}

/** Where the customer's check stands, in words, for an administrator acting on their behalf. */
const CHECK_SO_FAR = {
  none: "They have not started it yet.",
  pending: "It is in progress.",
  retry: "The provider asked them to try again.",
  rejected: "The provider refused it.",
  approved: "It is approved.",
} as const;

export async function IdentityPage(c: Context<AppEnv>) {
  const check = await readStoredResult(c.get("db"), customerOf(c)!.id);
  const provider = c.get("services").identity.name;
  if (c.get("onBehalf")) {
    // The documents and the selfie are the customer's own (decision 079): no launcher, no sandbox answers.
    return (
      <>
        <PageTitle>Confirm your identity</PageTitle>
        {/* The register layout is the card already. */}
        <div className="flex flex-col gap-3">
          <p>{IDENTITY_CHECK_IS_THEIRS}</p>
          <p>{CHECK_SO_FAR[check?.status ?? "none"]}</p>
        </div>
      </>
    );
  }
  return (
    <>
      <PageTitle lead="A photo of an identity document and a selfie: it takes about two minutes.">
        Confirm your identity
      </PageTitle>
      {provider === "sandbox"
        ? (
          // Said by the page itself, so that it shows before (and without) any script: this portal
          // runs the built-in sandbox (decision 023).
          <p
            role="note"
            className="mb-6 rounded-md border-l-4 border-amber-500 bg-amber-50 p-4 text-sm text-amber-950 dark:border-amber-400 dark:bg-amber-950 dark:text-amber-50"
          >
            <strong>Test identity check.</strong>{" "}
            This portal is a test installation: nobody checks your documents, and the answer you choose below is
            recorded as the result.
          </p>
        )
        : null}
      <IdentityCheck
        provider={provider}
        status={check?.status ?? "none"}
        comment={check?.moderationComment ?? null}
        supportEmail={c.get("config").supportEmail}
      />
    </>
  );
}

export async function SecondFactorPage(c: Context<AppEnv>) {
  const user = c.get("user")!;
  const totp = await hasAuthenticator(c.get("db"), user.id);
  return (
    <section className="mx-auto max-w-md">
      <PageTitle lead="One more step to keep your money safe.">Second factor</PageTitle>
      <div className="card">
        <SecondFactorForm method={totp ? "totp" : "email"} email={user.username} />
      </div>
    </section>
  );
}

export async function SecurityPage(c: Context<AppEnv>) {
  const user = c.get("user")!;
  const enabled = await hasAuthenticator(c.get("db"), user.id);
  return (
    <section className="max-w-2xl">
      <PageTitle lead="How you prove it is you when you sign in.">Sign-in and security</PageTitle>
      <div className="card">
        <PasswordSettings />
      </div>
      <div className="card mt-6">
        <TotpSettings enabled={enabled} email={user.username} />
      </div>
      <section aria-labelledby="everywhere-title" className="card mt-6 space-y-4">
        <h2 id="everywhere-title" className="text-lg font-semibold">Signed in elsewhere</h2>
        <p className="text-neutral-700 dark:text-neutral-300">
          Left yourself signed in on another device, or on someone else's computer? Sign out everywhere: every session
          of your login ends, this one too, and you sign in again here.
        </p>
        <SignOut everywhere label="Sign out everywhere" />
      </section>
    </section>
  );
}
