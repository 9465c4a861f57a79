/** Sumsub's WebSDK: the script, loaded once with the page's CSP nonce, and the part of it we use. */

export const SUMSUB_SDK_URL = "https://static.sumsub.com/idensic/static/sns-websdk-builder.js";
export const SUMSUB_CONTAINER_ID = "sumsub-websdk-container";

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
