import { type ReactNode, useEffect, useRef, useState } from "react";
import { api, ApiCallError, errorText, isAbort, newIdempotencyKey } from "./lib/api.ts";

export type IdentityStatus = "none" | "pending" | "approved" | "retry" | "rejected";

export interface IdentityCheckProps {
  provider: "sandbox" | "sumsub";
  status: IdentityStatus;
  /** The provider's comment on a "retry" (what to fix) or a "rejected" review. */
  comment?: string | null;
}

/** The sandbox's three answers, as POST sumsub/sandbox takes them. */
export const SANDBOX_ANSWERS = [
  { label: "Approve (GREEN)", body: { answer: "GREEN" } },
  { label: "Ask to retry (RED / RETRY)", body: { answer: "RED", reject_type: "RETRY" } },
  { label: "Reject (RED / FINAL)", body: { answer: "RED", reject_type: "FINAL" } },
] as const;

export const SUMSUB_SDK_URL = "https://static.sumsub.com/idensic/static/sns-websdk-builder.js";
export const SUMSUB_CONTAINER_ID = "sumsub-websdk-container";
export const STILL_IN_PROGRESS =
  "Your check is still in progress. We will email you when it is done; you can also check again in a few minutes.";

/** The part of Sumsub's WebSDK builder this island uses. */
export interface SnsWebSdk {
  init(accessToken: string, expirationHandler: () => Promise<string>): SnsWebSdkBuilder;
}
interface SnsWebSdkBuilder {
  withConf(conf: { lang: string }): SnsWebSdkBuilder;
  on(event: string, handler: (payload: unknown) => void): SnsWebSdkBuilder;
  build(): { launch(selector: string): void };
}

let loading: Promise<SnsWebSdk> | null = null;

/**
 * Loads Sumsub's WebSDK builder once (a <script> with the page's CSP nonce) and answers the
 * `snsWebSdk` global it defines. Already loaded (or put there by a test): answered at once. A
 * failed load may be tried again.
 */
export function loadSumsubSdk(url = SUMSUB_SDK_URL): Promise<SnsWebSdk> {
  const ready = (globalThis as { snsWebSdk?: SnsWebSdk }).snsWebSdk;
  if (ready) return Promise.resolve(ready);
  loading ??= new Promise<SnsWebSdk>((resolve, reject) => {
    const script = document.createElement("script");
    // Browsers hide a nonce attribute's value once read; the property keeps it.
    const page = document.querySelector<HTMLScriptElement>("script[nonce]");
    const nonce = page?.nonce || page?.getAttribute("nonce");
    if (nonce) script.nonce = nonce;
    script.src = url;
    script.async = true;
    const failed = () => {
      loading = null;
      script.remove();
      reject(new Error("The Sumsub WebSDK did not load"));
    };
    script.onload = () => {
      const sdk = (globalThis as { snsWebSdk?: SnsWebSdk }).snsWebSdk;
      if (sdk) resolve(sdk);
      else failed();
    };
    script.onerror = failed;
    document.head.append(script);
  });
  return loading;
}

const TONES = {
  error: "border-red-600 bg-red-50 text-red-900 dark:border-red-400 dark:bg-red-950 dark:text-red-100",
  warning: "border-amber-500 bg-amber-50 text-amber-900 dark:border-amber-400 dark:bg-amber-950 dark:text-amber-100",
  success:
    "border-emerald-600 bg-emerald-50 text-emerald-900 dark:border-emerald-400 dark:bg-emerald-950 dark:text-emerald-100",
  info: "border-sky-600 bg-sky-50 text-sky-900 dark:border-sky-400 dark:bg-sky-950 dark:text-sky-100",
};

/** A message box; `live` (errors) makes it an alert, otherwise it sits in the page's live region. */
function Alert(
  { tone = "error", title, live = true, children }: {
    tone?: keyof typeof TONES;
    title?: string;
    live?: boolean;
    children: ReactNode;
  },
) {
  return (
    <div role={live ? "alert" : undefined} className={`rounded-md border-l-4 p-4 text-sm ${TONES[tone]}`}>
      {title ? <p className="font-semibold">{title}</p> : null}
      <div className={title ? "mt-1" : undefined}>{children}</div>
    </div>
  );
}

const message = {
  none: "We need to check your identity before we can open your account. It takes a few minutes.",
  pending: "We are checking your documents. This usually takes a few minutes.",
  approved: "Your identity is verified.",
} as const;

/**
 * The identity check (DESIGN.md section 3, step 5). With the sandbox provider: three buttons that
 * record a review (clearly marked: nobody checks anything). With Sumsub: its WebSDK in the page.
 * Either way, sumsub/confirm then asks for the result: approved → the API layer follows the
 * redirect to /auth; 422 → the provider's comment, to try again; 403 → rejected; 409 → pending.
 */
export default function IdentityCheck({ provider, status: initialStatus, comment }: IdentityCheckProps) {
  const [status, setStatus] = useState<IdentityStatus>(initialStatus);
  // The provider's comment for "retry", or the server's text for "rejected".
  const [note, setNote] = useState<string | null>(comment ?? null);
  const [error, setError] = useState<string | null>(null);
  const [info, setInfo] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const live = useRef(true);
  useEffect(() => () => void (live.current = false), []);

  /** Asks for the review result and shows it. */
  async function confirm() {
    setBusy(true);
    setError(null);
    setInfo(null);
    try {
      await api.get("sumsub/confirm");
      // Approved: the API layer is on its way to /auth.
      if (!live.current) return;
      setStatus("approved");
      setInfo("Your identity is verified. Taking you to the next step…");
    } catch (err) {
      if (!live.current || isAbort(err)) return setBusy(false);
      const status = err instanceof ApiCallError ? err.status : 0;
      if (status === 422) {
        setStatus("retry");
        setNote(errorText(err));
      } else if (status === 403) {
        setStatus("rejected");
        setNote(errorText(err));
      } else if (status === 409) {
        setStatus("pending");
        setInfo(STILL_IN_PROGRESS);
      } else {
        setError(errorText(err));
      }
      setBusy(false);
    }
  }

  async function answer(body: (typeof SANDBOX_ANSWERS)[number]["body"]) {
    setBusy(true);
    setError(null);
    setInfo(null);
    try {
      await api.post("sumsub/sandbox", body, { idempotencyKey: newIdempotencyKey() });
    } catch (err) {
      if (live.current) {
        if (!isAbort(err)) setError(errorText(err));
        setBusy(false);
      }
      return;
    }
    if (live.current) await confirm();
  }

  const settled = status === "approved" || status === "rejected";

  return (
    <div className="flex flex-col gap-4" aria-busy={busy || undefined}>
      {/* Always on the page, so a screen reader announces each new state. */}
      <div aria-live="polite" className="flex flex-col gap-4">
        <StatusBox status={status} note={note} />
        {info ? <Alert live={false} tone={status === "approved" ? "success" : "info"}>{info}</Alert> : null}
      </div>
      {error ? <Alert>{error}</Alert> : null}

      {settled
        ? null
        : provider === "sandbox"
        ? <SandboxControls busy={busy} onAnswer={answer} />
        : <SumsubLauncher onReviewed={confirm} onPending={() => setStatus("pending")} onError={setError} />}

      {settled || (provider === "sandbox" && status !== "pending") ? null : (
        <div>
          <button
            type="button"
            className="btn-ghost border border-neutral-300 dark:border-neutral-700"
            disabled={busy}
            onClick={confirm}
          >
            Check my result
          </button>
        </div>
      )}
    </div>
  );
}

function StatusBox({ status, note }: { status: IdentityStatus; note: string | null }) {
  if (status === "retry") {
    return (
      <Alert live={false} tone="warning" title="Please try again">
        <p>We could not verify your identity from what you sent.</p>
        {note ? <p className="mt-1">What to fix: {note}</p> : null}
      </Alert>
    );
  }
  if (status === "rejected") {
    return (
      <Alert live={false} tone="error" title="We could not verify your identity">
        {note ? <p>{note}</p> : null}
        <p className={note ? "mt-1" : undefined}>Please contact support if you think this is a mistake.</p>
      </Alert>
    );
  }
  return (
    <p className="text-neutral-700 dark:text-neutral-300">
      {message[status]}
      {status === "approved"
        ? (
          <>
            {" "}
            <a href="/auth" className="font-semibold text-primary-800 underline dark:text-primary-300">Continue</a>
          </>
        )
        : null}
    </p>
  );
}

function SandboxControls(
  { busy, onAnswer }: { busy: boolean; onAnswer: (body: (typeof SANDBOX_ANSWERS)[number]["body"]) => void },
) {
  return (
    <section
      aria-labelledby="sandbox-title"
      className="rounded-xl border-2 border-dashed border-amber-500 bg-amber-50 p-6 text-amber-950 dark:border-amber-400 dark:bg-amber-950 dark:text-amber-50"
    >
      <h2 id="sandbox-title" className="text-base font-semibold">
        Sandbox identity provider — for development and testing only; no real check is made
      </h2>
      <p className="mt-1 text-sm">Choose the answer the provider would give. It is recorded as this user's review.</p>
      <div className="mt-4 flex flex-wrap gap-3">
        {SANDBOX_ANSWERS.map(({ label, body }) => (
          <button
            key={label}
            type="button"
            className={body.answer === "GREEN"
              ? "btn-primary"
              : "btn-ghost border border-amber-600 dark:border-amber-400"}
            disabled={busy}
            onClick={() => onAnswer(body)}
          >
            {label}
          </button>
        ))}
      </div>
    </section>
  );
}

/**
 * Sumsub's WebSDK: fetches an access token, loads the SDK and launches it in the container. When
 * the applicant's review completes, `onReviewed` asks for the result.
 */
function SumsubLauncher(
  { onReviewed, onPending, onError }: {
    onReviewed: () => void;
    onPending: () => void;
    onError: (message: string) => void;
  },
) {
  // The latest handlers, read by the SDK's callbacks (registered once).
  const handlers = useRef({ onReviewed, onPending, onError });
  handlers.current = { onReviewed, onPending, onError };

  useEffect(() => {
    let active = true;
    const newToken = () => api.get<{ accessToken: string }>("sumsub/token").then((t) => t.accessToken);
    (async () => {
      try {
        const token = await api.get<{ kind: string; accessToken?: string }>("sumsub/token");
        if (!active || !token?.accessToken) return;
        const sdk = await loadSumsubSdk();
        if (!active) return;
        sdk.init(token.accessToken, newToken)
          .withConf({ lang: "en" })
          .on("idCheck.onApplicantStatusChanged", (payload) => {
            const review = (payload ?? {}) as { reviewStatus?: string };
            if (review.reviewStatus === "completed") handlers.current.onReviewed();
            else if (review.reviewStatus === "pending" || review.reviewStatus === "onHold") {
              handlers.current.onPending();
            }
          })
          .build()
          .launch(`#${SUMSUB_CONTAINER_ID}`);
      } catch (err) {
        if (active && !isAbort(err)) {
          handlers.current.onError(errorText(err));
        }
      }
    })();
    return () => void (active = false);
  }, []);

  return <div id={SUMSUB_CONTAINER_ID} className="min-h-96" />;
}
