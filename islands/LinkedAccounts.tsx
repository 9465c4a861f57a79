// deno-lint-ignore no-explicit-any
export default function LinkedAccounts(_props: any) {
  return null;
}
