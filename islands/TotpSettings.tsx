import { type FormEvent, useEffect, useRef, useState } from "react";
import { disableTotp, enableTotp, type NewTotpKey, startTotp } from "./auth/calls.ts";
import { PROOF_NEEDED } from "../lib/it-is-you.ts";
import { CodeField, codeOf, LINK, rememberUser } from "./auth/fields.tsx";
import { notify } from "./lib/notification-store.ts";
import { withQueries } from "./lib/query-client.tsx";
import { FormAlert, Status } from "./ui/alert.tsx";
import { TextField } from "./ui/field.tsx";
import { BusyButton, SubmitButton, useHydrated } from "./ui/submit-button.tsx";
import { useForm } from "./ui/use-form.ts";

export interface TotpSettingsProps {
  /** Whether the user signs in with an authenticator app now. */
  enabled: boolean;
  /** Where emailed codes go. */
  email: string;
}

/** "JBSWY3DPEHPK3PXP" → "JBSW Y3DP EHPK 3PXP": easier to read and type. */
export const groupsOf4 = (secret: string): string => secret.replace(/(.{4})(?=.)/g, "$1 ");

/** Who is there, asked again before the second factor changes (decision 023). */
type Proof = { password: string } | { code: string };

/** The password, or else the app's code, of a submitted proof form; null when both are empty. */
function proofOf(data: FormData): Proof | null {
  const password = String(data.get("password") ?? "");
  if (password) return { password };
  const code = codeOf(data);
  return code ? { code } : null;
}

/**
 * The authenticator app setting. Off: "Set up" asks for the password, then for a new key (POST
 * account/totp/setup {password}), shown as a QR code (an SVG the server drew), as text and as an
 * otpauth:// link, then the app's code turns it on (POST account/totp/enable {code}: the server remembers
 * the key it gave this browser, decision 072). On: "Turn
 * off" asks for the password or a current code from the app (DELETE account/totp {password} or
 * {code}).
 */
function TotpSettings({ enabled: enabledAtLoad, email }: TotpSettingsProps) {
  const start = useForm({ call: startTotp });
  // A retry of the same code replays the first answer: the server accepts a code only once.
  const enable = useForm({ call: enableTotp, idempotent: true });
  const disable = useForm({ call: disableTotp });
  const hydrated = useHydrated();
  const [enabled, setEnabled] = useState(enabledAtLoad);
  const [newKey, setNewKey] = useState<NewTotpKey | null>(null);
  const [copied, setCopied] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  // The step that asks who is there: before a new key, or before turning the app off.
  const [confirming, setConfirming] = useState<"setup" | "off" | null>(null);

  // After each step, focus moves to the section, so keyboard and screen-reader users follow along.
  const section = useRef<HTMLElement>(null);
  const stepped = useRef(false);
  useEffect(() => {
    if (stepped.current) section.current?.focus();
    stepped.current = true;
  }, [enabled, newKey, confirming]);

  async function begin(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const proof = proofOf(new FormData(event.currentTarget));
    // Said at the field, as the server would say it: an empty form did nothing, and an earlier
    // answer stayed under the field.
    if (!proof) return start.show({ password: PROOF_NEEDED }, PROOF_NEEDED);
    const result = await start.submit({ body: proof });
    if (result.ok) {
      setCopied(false);
      setConfirming(null);
      setNewKey(result.answer);
    }
  }

  async function confirm(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!newKey) return;
    const body = { code: codeOf(new FormData(event.currentTarget)) };
    const result = await enable.submit({ body });
    if (!result.ok) return;
    rememberUser(result.answer);
    setNewKey(null);
    setEnabled(true);
    setDone("Authenticator app is on.");
    notify({ title: "Authenticator app is on", color: "success" });
  }

  async function turnOff(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const proof = proofOf(new FormData(event.currentTarget));
    if (!proof) return disable.show({ password: PROOF_NEEDED }, PROOF_NEEDED);
    const result = await disable.submit({ body: proof });
    if (!result.ok) return;
    rememberUser(result.answer);
    setConfirming(null);
    setEnabled(false);
    setDone("Authenticator app is off.");
    notify({ title: "Authenticator app is off", color: "success" });
  }

  async function copy() {
    if (!newKey) return;
    try {
      await navigator.clipboard.writeText(newKey.secret);
      setCopied(true);
    } catch {
      // No clipboard (not https, refused): the key stays on screen to select by hand.
      setCopied(false);
    }
  }

  return (
    <section
      ref={section}
      tabIndex={-1}
      aria-labelledby="totp-title"
      className="space-y-4 focus:outline-none"
    >
      <h2 id="totp-title" className="text-lg font-semibold">Authenticator app</h2>
      <Status>{done}</Status>
      {confirming === "off"
        ? (
          <form method="post" onSubmit={turnOff} className="space-y-4" aria-label="Turn off the authenticator app">
            <p className="text-neutral-700 dark:text-neutral-300">
              To turn the app off, confirm it is you: your password, or the code your app shows now.
            </p>
            <FormAlert error={disable.error} fields={disable.fields} shown={["password", "code"]} />
            <TextField
              id="totp-off-password"
              label="Your password"
              name="password"
              type="password"
              autoComplete="current-password"
              optional
              error={disable.fields.password}
            />
            <CodeField
              id="totp-off-code"
              label="Or a code from the app"
              optional
              required={false}
              error={disable.fields.code}
            />
            <div className="flex flex-wrap gap-2">
              <SubmitButton pending={disable.submitting} pendingLabel="Turning off…" className="btn-primary">
                Turn off the app
              </SubmitButton>
              <BusyButton
                type="button"
                className="btn-ghost"
                onClick={() => setConfirming(null)}
                busy={disable.submitting}
                aria-busy={undefined}
              >
                Cancel
              </BusyButton>
            </div>
          </form>
        )
        : confirming === "setup"
        ? (
          <form method="post" onSubmit={begin} className="space-y-4" aria-label="Confirm it is you">
            <p className="text-neutral-700 dark:text-neutral-300">
              Before you set up an app, confirm it is you with your password.
            </p>
            <FormAlert error={start.error} fields={start.fields} shown={["password"]} />
            <TextField
              id="totp-setup-password"
              label="Your password"
              name="password"
              type="password"
              autoComplete="current-password"
              error={start.fields.password}
            />
            <div className="flex flex-wrap gap-2">
              <SubmitButton pending={start.submitting} pendingLabel="Preparing…" className="btn-primary">
                Continue
              </SubmitButton>
              <BusyButton
                type="button"
                className="btn-ghost"
                onClick={() => setConfirming(null)}
                busy={start.submitting}
                aria-busy={undefined}
              >
                Cancel
              </BusyButton>
            </div>
          </form>
        )
        : enabled
        ? (
          <>
            <p className="text-neutral-700 dark:text-neutral-300">
              <strong>Authenticator app is on.</strong>{" "}
              When you sign in, enter the code your app shows. You can still ask for a code by email to{" "}
              <span className="break-all">{email}</span>.
            </p>
            <button
              type="button"
              className="btn-ghost"
              onClick={() => (setDone(null), setConfirming("off"))}
              disabled={!hydrated}
            >
              Turn off
            </button>
          </>
        )
        : newKey
        ? (
          <ol className="list-decimal space-y-4 pl-5 text-neutral-700 dark:text-neutral-300">
            <li className="space-y-2">
              <p>
                Scan this code with your authenticator app, or add the key below by hand, or{" "}
                <a href={newKey.uri} className={LINK}>open in your authenticator app</a>.
              </p>
              {/* The server's SVG of the otpauth:// address (our own markup, no text of the user's in it). */}
              <div
                role="img"
                aria-label="QR code to scan with your authenticator app"
                className="size-48 rounded-md bg-white p-1"
                dangerouslySetInnerHTML={{ __html: newKey.qr_code_svg }}
              />
              <div className="flex flex-wrap items-center gap-2">
                <code
                  aria-label="Key"
                  className="rounded-md bg-neutral-100 px-3 py-2 font-mono text-base tracking-wide break-words text-neutral-900 select-all dark:bg-neutral-800 dark:text-neutral-100"
                >
                  {groupsOf4(newKey.secret)}
                </code>
                <button type="button" className="btn-ghost" onClick={copy}>
                  {copied ? "Copied" : "Copy key"}
                </button>
              </div>
              <p className="text-xs break-all text-neutral-600 dark:text-neutral-400">{newKey.uri}</p>
            </li>
            <li>
              <form method="post" onSubmit={confirm} className="space-y-4" aria-label="Turn on the authenticator app">
                <p>Enter the 6-digit code the app shows now.</p>
                <FormAlert error={enable.error} fields={enable.fields} shown={["code"]} />
                <CodeField id="totp-code" label="Code from the app" error={enable.fields.code} />
                <div className="flex flex-wrap gap-2">
                  <SubmitButton pending={enable.submitting} pendingLabel="Checking…" className="btn-primary">
                    Turn on
                  </SubmitButton>
                  <BusyButton
                    type="button"
                    className="btn-ghost"
                    onClick={() => setNewKey(null)}
                    busy={enable.submitting}
                    aria-busy={undefined}
                  >
                    Cancel
                  </BusyButton>
                </div>
              </form>
            </li>
          </ol>
        )
        : (
          <>
            <p className="text-neutral-700 dark:text-neutral-300">
              Authenticator app is off: each time you sign in, we email a 6-digit code to{" "}
              <span className="break-all">{email}</span>. With an app, the code is on your phone at once.
            </p>
            <button
              type="button"
              className="btn-primary"
              onClick={() => (setDone(null), setConfirming("setup"))}
              disabled={!hydrated}
            >
              Set up an authenticator app
            </button>
          </>
        )}
    </section>
  );
}

export default withQueries(TotpSettings);
