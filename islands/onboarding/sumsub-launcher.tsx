/**
 * Sumsub's WebSDK in the page: an access token (GET sumsub/token, a query, asked again when the SDK
 * says the token expired), the SDK loaded and launched in its container. When the applicant's
 * review completes, `onReviewed` asks for the result.
 */
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { api, errorText } from "../lib/api.ts";
import { identityKeys } from "../lib/query-keys.ts";
import { identityToken } from "./calls.ts";
import { loadSumsubSdk, SUMSUB_CONTAINER_ID } from "./sumsub-sdk.ts";

const tokenQuery = {
  queryKey: identityKeys.token,
  queryFn: ({ signal }: { signal: AbortSignal }) => api.send(identityToken, {}, { signal }),
  // A token is good for one launch; the SDK asks for the next one itself.
  staleTime: 0,
};

export function SumsubLauncher({ onReviewed, onPending, onError }: {
  onReviewed: () => void;
  onPending: () => void;
  onError: (message: string) => void;
}) {
  const queries = useQueryClient();
  const token = useQuery({ ...tokenQuery, refetchOnWindowFocus: false });
  // The latest handlers, read by the SDK's callbacks (registered once).
  const handlers = useRef({ onReviewed, onPending, onError });
  handlers.current = { onReviewed, onPending, onError };
  const accessToken = token.data?.kind === "sumsub" ? token.data.accessToken : null;

  useEffect(() => {
    if (token.isError) handlers.current.onError(errorText(token.error));
  }, [token.isError]);

  useEffect(() => {
    if (!accessToken) return;
    let active = true;
    const newToken = () =>
      queries.fetchQuery(tokenQuery).then((answer) => (answer.kind === "sumsub" ? answer.accessToken : ""));
    loadSumsubSdk().then((sdk) => {
      if (!active) return;
      sdk.init(accessToken, newToken)
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
    }, (err) => {
      if (active) handlers.current.onError(errorText(err));
    });
    return () => void (active = false);
  }, [accessToken]);

  return <div id={SUMSUB_CONTAINER_ID} className="min-h-96" />;
}
