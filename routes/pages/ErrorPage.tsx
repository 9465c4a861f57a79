/**
 * The error page (SPEC.md section 2): a large status code, the status message or 'Unexpected error
 * occurred', and a way home. It renders no island, so it ships no script: it must work even when
 * the scripts are what broke.
 */
export function ErrorPage(
  { status, message, path, reference }: { status: number; message?: string; path?: string; reference?: string },
) {
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-6 px-6 text-center">
      <p className="text-8xl font-bold tracking-tight text-primary-700 dark:text-primary-400">{status}</p>
      <h1 className="text-2xl font-semibold">{message || "Unexpected error occurred"}</h1>
      {path && <p className="max-w-xl break-all font-mono text-sm text-neutral-600 dark:text-neutral-400">{path}</p>}
      {/* What a customer quotes to support: the request's id, which finds its lines in the log. */}
      {reference && (
        <p className="text-sm text-neutral-600 dark:text-neutral-400">
          Reference: <span className="font-mono">{reference}</span>
        </p>
      )}
      {/* A plain link: following it leaves the error behind and starts again at home. */}
      <a href="/" className="btn-primary">Back To Home Page</a>
    </main>
  );
}
