import { PageTitle } from "../layouts/parts.tsx";

/** Where customers wait while compliance reviews their application before the account opens. */
export function Processing() {
  return (
    <section className="mx-auto max-w-xl">
      <PageTitle lead="Your identity check is complete.">We are reviewing your application</PageTitle>
      <div className="card">
        <p>
          Our compliance team reviews every business account, and some personal ones, before opening them. We will email
          you as soon as your account is open; there is nothing else you need to do now.
        </p>
      </div>
    </section>
  );
}
