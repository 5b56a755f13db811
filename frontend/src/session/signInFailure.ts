/**
 * Why a sign-in with the identity provider failed, in the console's own
 * words: the server sends the browser back with a reason's code
 * (`/?sign_in_failed=refused`), never its text, so that a link cannot put
 * anyone's words on the sign-in screen.
 */
const reasons = {
  refused: "The identity provider's sign-in was refused or had expired. Sign in again.",
  no_workspace: "You signed in, but none of your groups gives you a workspace here. Ask an administrator to add you.",
  unavailable: "The identity provider could not be reached. Try again in a moment.",
  failed: "The sign-in with the identity provider failed. Try again; if it fails again, an administrator can see why in the server's log.",
} as const;

const failed: string = reasons.failed;

export const signInFailedParam = "sign_in_failed";

let taken: string | null | undefined;

/**
 * The reason the address carries, worded, read once: the address loses it,
 * so a reload or a shared link does not show it again.
 */
export function takeSignInFailure(): string | null {
  if (taken !== undefined) return taken;
  const url = new URL(window.location.href);
  const reason = url.searchParams.get(signInFailedParam);
  const said = reason === null ? null : Object.hasOwn(reasons, reason) ? reasons[reason as keyof typeof reasons] : failed;
  if (reason !== null) {
    url.searchParams.delete(signInFailedParam);
    window.history.replaceState(window.history.state, "", url.pathname + url.search + url.hash);
  }
  taken = said;
  return said;
}

/** Forgets what was taken (tests). */
export function resetSignInFailure() {
  taken = undefined;
}
