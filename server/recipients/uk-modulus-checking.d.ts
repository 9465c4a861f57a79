/**
 * The part of uk-modulus-checking (0.1.4, which ships no types) that uk-modulus.ts uses: the
 * checker, and the two loaders it calls from its constructor, which a subclass replaces.
 */
export default class UkModulusChecking {
  constructor(account: { sortCode: string; accountNumber: string });
  isValid(): boolean;
  loadValacdos(): readonly object[];
  loadScsubtab(): readonly object[];
}
