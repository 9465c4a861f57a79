/**
 * The values the KYC profile form starts from (islands/PersonalProfileForm.tsx and
 * BusinessProfileForm.tsx): every field each customer type's form sends, exactly the fields of
 * SPEC.md section 3, with the saved answers laid over the empty ones. Prepared by the server (the
 * register pages), so the islands carry neither the list nor the code.
 */

export type ProfileType = "Personal" | "Business";
export type Values = Record<string, unknown>;

const EMPTY_ADDRESS = { line1: "", line2: "", city: "", region: "", postcode: "", country: "" };

/** What each type's form sends, with its empty values. */
export const BLANK: Record<ProfileType, Values> = {
  Personal: {
    first: "",
    last: "",
    dob: "",
    phone: "",
    address: EMPTY_ADDRESS,
    identity: "",
    employment: "",
    position: "",
    expected: "",
    fundSource: "",
    source: [],
    purpose: [],
    discovery: "",
    personal: false,
    agency: false,
    agency_of: "",
    public: false,
    denial: false,
  },
  Business: {
    name: "",
    number: "",
    incorporation: "",
    country: "",
    address: EMPTY_ADDRESS,
    nature: "",
    turnover: "",
    website: "",
    first: "",
    last: "",
    phone: "",
    dob: "",
    discovery: "",
    ubos: [""],
    directors: [""],
    purpose: [],
  },
};

/**
 * The saved profile laid over the blank one, field by field and typed like the blank: unknown keys
 * (compliance, accountManager, created) are left out, so they are never posted back.
 */
export function initialValues(blank: Values, saved: unknown): Values {
  const from = saved && typeof saved === "object" ? saved as Record<string, unknown> : {};
  const out: Values = {};
  for (const [key, empty] of Object.entries(blank)) {
    const v = from[key];
    if (Array.isArray(empty)) {
      const list = Array.isArray(v) ? v.map((item) => String(item ?? "")) : [];
      out[key] = list.length || !empty.length ? list : empty;
    } else if (typeof empty === "boolean") out[key] = typeof v === "boolean" ? v : empty;
    else if (typeof empty === "object" && empty) out[key] = initialValues(empty as Values, v);
    else out[key] = v === null || v === undefined ? "" : v instanceof Date ? v.toISOString().slice(0, 10) : String(v);
  }
  return out;
}

/** The form's values for a customer of `type`: their saved profile (if any) over the empty form. */
export const profileValues = (type: ProfileType, saved: unknown): Values => initialValues(BLANK[type], saved);
