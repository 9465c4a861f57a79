import { PageTitle } from "../layouts/parts.tsx";

/**
 * Where customers wait while compliance reviews their application before the account opens; or,
 * once the review rejected it, what they are told (the reason in words for customers, never the
 * reviewer's note) and where to write to us.
 */
export function Processing(
  { rejection, supportEmail }: { rejection?: { reason: string; supportEmail: string } | null; supportEmail: string },
) {
  if (rejection) {
    return (
      <section className="mx-auto max-w-xl">
        <PageTitle lead="Our review of your application is complete.">We cannot open your account</PageTitle>
        <div className="card flex flex-col gap-3">
          <p>Our compliance team has reviewed your application, and we cannot open a Portal account for you.</p>
          <p>{rejection.reason}</p>
          <p>
            If you think we have made a mistake, or your circumstances change, write to us at{" "}
            <a className="link" href={`mailto:${rejection.supportEmail}`}>{rejection.supportEmail}</a>.
          </p>
        </div>
      </section>
    );
  }
  return (
    <section className="mx-auto max-w-xl">
      <PageTitle lead="Your identity check is complete.">We are reviewing your application</PageTitle>
      <div className="card flex flex-col gap-3">
        <p>
          Our compliance team reviews every business account, and some personal ones, before opening them. We will email
          you as soon as your account is open; there is nothing else you need to do now.
        </p>
        {/* The details the identity check verified are what the review reads: locked here (decision 071). */}
        <p>
          Your details are the ones we verified, so they can no longer be changed here. If something in them is wrong or
          has changed, write to us at <a className="link" href={`mailto:${supportEmail}`}>{supportEmail}</a>.
        </p>
      </div>
    </section>
  );
}
