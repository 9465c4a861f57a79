import { useState } from "react";
import { api } from "./lib/api.ts";
import { useHydrated } from "./lib/forms.tsx";
import { userStore } from "./lib/user-store.ts";

/**
 * Signs out (POST auth/logout); the API layer follows the redirect to '/'. A failure is only logged
 * (SPEC.md section 8) and the visitor still goes to '/'.
 */
export default function LogoutButton() {
  const hydrated = useHydrated();
  const [pending, setPending] = useState(false);

  async function signOut() {
    setPending(true);
    try {
      await api.post("auth/logout", {});
    } catch (err) {
      console.warn("Sign-out failed", err);
      location.assign("/");
    } finally {
      userStore.clear();
    }
  }

  return (
    <button
      type="button"
      className="btn-ghost"
      onClick={signOut}
      disabled={pending || !hydrated}
      aria-busy={pending || undefined}
    >
      {pending ? "Signing out…" : "Sign out"}
    </button>
  );
}
