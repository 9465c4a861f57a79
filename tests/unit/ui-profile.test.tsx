// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from "@testing-library/react";
import { renderToString } from "react-dom/server";
import { afterEach, beforeEach, describe, expect, type Mock, test, vi } from "vitest";
import BusinessProfileForm from "../../islands/BusinessProfileForm.tsx";
import PersonalProfileForm from "../../islands/PersonalProfileForm.tsx";
import { displayed } from "../../islands/onboarding/profile-form.tsx";
import { initialValues, profileValues } from "../../lib/profile-values.ts";
import { type Answer, fakeApi, resetIslands } from "../helpers/fake-api.ts";

/** The fake server, answering by method, path and body. */
const server = (route: (method: string, path: string, body: unknown) => [number, unknown?]) =>
  fakeApi((call) => route(call.method, call.path, call.body) as Answer);

/** Lets the calls and React's updates run, inside act. */
const settle = (ms = 0) => act(() => vi.advanceTimersByTimeAsync(ms));

const COUNTRIES = [
  { code: "FR", name: "France" },
  { code: "HK", name: "Hong Kong", postcode: false },
  { code: "GB", name: "United Kingdom", postcode: true },
];
/** The empty forms, as the register pages prepare them. */
const PERSONAL = profileValues("Personal", null);
const BUSINESS = profileValues("Business", null);
const USER = { id: 3, username: "ada@example.com", name: "Ada Lovelace", level: "User", type: "Personal" };

let assign: Mock<(url: string | URL) => void>;
beforeEach(() => {
  vi.useFakeTimers();
  assign = vi.fn<(url: string | URL) => void>();
  vi.spyOn(location, "assign").mockImplementation(assign);
});
afterEach(() => {
  cleanup();
  resetIslands();
  vi.useRealTimers();
});

const type = (label: string | RegExp, value: string) =>
  fireEvent.change(screen.getByLabelText(label), { target: { value } });
const group = (name: RegExp) => within(screen.getByRole("group", { name }));
const submit = () => fireEvent.click(screen.getByRole("button", { name: "Save and continue" }));

/**
 * Some forty fields typed one by one, each a render of the whole form in happy-dom: about 2 s alone,
 * more on the shared 2-core machine while other files run.
 */
const FORM_TIMEOUT_MS = 20_000;

describe("Personal profile", { timeout: FORM_TIMEOUT_MS }, () => {
  test("posts every field as JSON, with the nested address and the lists; the redirect goes to /identity", async () => {
    const calls = server(() => [200, { body: USER, redirect: "/identity" }]);
    render(<PersonalProfileForm countries={COUNTRIES} values={PERSONAL} />);

    type("First name", "Ada");
    type("Last name", "Lovelace");
    type("Date of birth", "1990-12-10");
    type("Phone number", "+44 20 7946 0000");
    expect(screen.getByLabelText("Phone number").getAttribute("placeholder")).toBe("+44 20 7946 0000");
    type("Address line 1", "1 Main Street");
    type(/^Address line 2/, "Flat 2");
    type("Town or city", "London");
    type("Postcode", "SW1A 1AA");
    type("Country", "GB");
    type("Passport number", "123456789");
    type("Employment status", "Employed");
    type("Job title", "Engineer");
    type("Expected annual amount you'll send", "20000");
    type("Main source of funds", "Salary");
    fireEvent.click(group(/Where does the money you send come from/).getByRole("checkbox", { name: "Salary" }));
    fireEvent.click(group(/Where does the money you send come from/).getByRole("checkbox", { name: "Savings" }));
    fireEvent.click(group(/What will you use the account for/).getByRole("checkbox", { name: "Family support" }));
    fireEvent.click(screen.getByRole("checkbox", { name: "This account is for my personal use" }));
    expect(screen.queryByLabelText("Who are you acting for?")).toBeNull();
    fireEvent.click(screen.getByRole("checkbox", { name: "I am acting on behalf of someone else" }));
    type("Who are you acting for?", "My mother");
    type(/How did you hear about us/, "Search engine");

    submit();
    await settle();

    expect(calls).toHaveLength(1);
    expect(calls[0].method).toBe("POST");
    expect(calls[0].path).toBe("account/profile");
    expect(calls[0].headers.get("Idempotency-Key")).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls[0].body).toEqual({
      first: "Ada",
      last: "Lovelace",
      dob: "1990-12-10",
      phone: "+44 20 7946 0000",
      address: {
        line1: "1 Main Street",
        line2: "Flat 2",
        city: "London",
        region: "",
        postcode: "SW1A 1AA",
        country: "GB",
      },
      identity: "123456789",
      employment: "Employed",
      position: "Engineer",
      expected: "20000",
      fundSource: "Salary",
      source: ["Salary", "Savings"],
      purpose: ["Family support"],
      discovery: "Search engine",
      personal: true,
      agency: true,
      agency_of: "My mother",
      public: false,
      denial: false,
    });
    expect(assign).toHaveBeenCalledWith("/identity");
    // On its way to /identity: the button says so and sends nothing more.
    expect(screen.getByRole("button", { name: "Saving…" }).getAttribute("aria-disabled")).toBe("true");
  });

  test("a 422 puts each message under its input, the general error in the alert, and focuses the first invalid field", async () => {
    const country = "Country must be a two-letter ISO code such as GB.";
    const calls = server(() => [422, {
      error: "Please correct the highlighted fields.",
      message: "Unprocessable Entity",
      fields: {
        "address.country": country,
        phone: "Enter a valid international phone number, e.g. +44 20 7946 0000.",
        compliance: "Not yours to set.",
      },
    }]);
    render(<PersonalProfileForm countries={COUNTRIES} values={PERSONAL} />);
    submit();
    await settle();

    expect(calls).toHaveLength(1);
    const alert = screen.getByRole("alert");
    expect(alert.textContent).toContain("Please correct the highlighted fields.");
    // A message no input shows is listed in the alert, so it is not lost.
    expect(alert.textContent).toContain("Not yours to set.");

    const select = screen.getByLabelText("Country");
    expect(select.getAttribute("aria-invalid")).toBe("true");
    const describedBy = select.getAttribute("aria-describedby")!.split(" ");
    expect(describedBy.map((id) => document.getElementById(id)?.textContent)).toContain(country);
    // The message sits right under the select.
    expect(select.parentElement!.textContent).toContain(country);
    // The phone comes first on the page.
    expect(document.activeElement).toBe(screen.getByLabelText("Phone number"));
    expect(screen.getByRole("button", { name: "Save and continue" })).toHaveProperty("disabled", false);

    // Choosing a country takes its message away.
    type("Country", "FR");
    expect(screen.queryByText(country)).toBeNull();
    expect(select.getAttribute("aria-invalid")).toBeNull();
  });

  test("a failure without a text shows the fallback; the same profile sent again keeps its idempotency key", async () => {
    const calls = server(() => [500]);
    render(<PersonalProfileForm countries={COUNTRIES} values={PERSONAL} />);
    type("First name", "Ada");
    submit();
    await settle();
    expect(screen.getByRole("alert").textContent).toContain("An error occurred. Please try again later");
    submit();
    await settle();
    type("First name", "Ada B.");
    submit();
    await settle();
    expect(calls).toHaveLength(3);
    expect(calls[1].headers.get("Idempotency-Key")).toBe(calls[0].headers.get("Idempotency-Key"));
    expect(calls[2].headers.get("Idempotency-Key")).not.toBe(calls[0].headers.get("Idempotency-Key"));
  });

  test("a saved profile fills the form; what the customer does not own is not posted back", async () => {
    const calls = server(() => [200, { body: USER, redirect: "/identity" }]);
    const initial = {
      first: "Ada",
      last: "Lovelace",
      dob: "1990-12-10",
      phone: "+442079460000",
      address: { line1: "1 Main Street", line2: "", city: "London", region: "", postcode: "SW1A 1AA", country: "GB" },
      identity: "123456789",
      employment: "Retired",
      position: "",
      expected: "20000",
      fundSource: "Savings",
      source: ["Savings", "Lottery"],
      purpose: ["Travel"],
      discovery: "",
      personal: true,
      agency: false,
      agency_of: "",
      public: false,
      denial: true,
      compliance: { done: true, amount: "1", date: "2026-01-01" },
      accountManager: "Bob",
    };
    render(<PersonalProfileForm countries={COUNTRIES} values={profileValues("Personal", initial)} />);
    expect(screen.getByLabelText("First name")).toHaveProperty("value", "Ada");
    expect(screen.getByLabelText("Country")).toHaveProperty("value", "GB");
    // A saved answer the options lack stays, and stays chosen.
    expect(group(/Where does the money/).getByRole("checkbox", { name: "Lottery" })).toHaveProperty("checked", true);
    // Retired: the job title is optional.
    expect(screen.getByText("Job title").parentElement!.textContent).toContain("(optional)");
    submit();
    await settle();
    const { compliance: _c, accountManager: _a, ...expected } = initial;
    expect(calls[0].body).toEqual(expected);
  });

  test("renders on the server and hydrates with the same props, without a warning", async () => {
    server(() => [200, { body: null }]);
    const element = <PersonalProfileForm countries={COUNTRIES} values={profileValues("Personal", null)} />;
    const html = renderToString(element);
    expect(html).toContain("Save and continue");
    // Before hydration the button is disabled: the form is sent by script only.
    expect(html).toMatch(/<button type="submit"[^>]*disabled/);
    const container = document.createElement("div");
    container.innerHTML = html;
    document.body.append(container);
    render(element, { container, hydrate: true });
    await settle();
    expect(screen.getByRole("button", { name: "Save and continue" })).toHaveProperty("disabled", false);
    container.remove();
  });

  test("autocomplete attributes name what the browser may fill in", () => {
    render(<PersonalProfileForm countries={COUNTRIES} values={PERSONAL} />);
    const auto = (label: string | RegExp) => screen.getByLabelText(label).getAttribute("autocomplete");
    expect(auto("First name")).toBe("given-name");
    expect(auto("Last name")).toBe("family-name");
    expect(auto("Date of birth")).toBe("bday");
    expect(auto("Phone number")).toBe("tel");
    expect(auto("Address line 1")).toBe("address-line1");
    expect(auto("Town or city")).toBe("address-level2");
    expect(auto("Postcode")).toBe("postal-code");
    expect(auto("Country")).toBe("country");
    expect(screen.getByLabelText("Date of birth").getAttribute("type")).toBe("date");
    expect(screen.getByLabelText("Phone number").getAttribute("type")).toBe("tel");
    expect(screen.getByLabelText("Expected annual amount you'll send").getAttribute("inputmode")).toBe("decimal");
    // Where addresses have no postcode, it is optional.
    type("Country", "HK");
    expect(screen.getByLabelText(/^Postcode/).hasAttribute("required")).toBe(false);
  });
});

describe("Business profile", { timeout: FORM_TIMEOUT_MS }, () => {
  test("adds and removes beneficial owners; posts the lists in order; row errors land under their row", async () => {
    const calls = server(() => [422, {
      error: "Director name is required.",
      message: "Unprocessable Entity",
      fields: { "directors.0": "Director name is required.", "ubos.1": "Beneficial owner name is required." },
    }]);
    render(<BusinessProfileForm countries={COUNTRIES} values={BUSINESS} />);

    const owners = () => screen.getAllByLabelText(/Ultimate beneficial owner full name/);
    expect(owners()).toHaveLength(1);
    expect(screen.getByRole("button", { name: "Remove beneficial owner 1" })).toHaveProperty("disabled", true);

    fireEvent.click(screen.getByRole("button", { name: "Add another owner" }));
    fireEvent.click(screen.getByRole("button", { name: "Add another owner" }));
    expect(owners()).toHaveLength(3);
    // The new row has the focus.
    expect(document.activeElement).toBe(owners()[2]);
    owners().forEach((input, i) =>
      fireEvent.change(input, { target: { value: ["Alice Smith", "Bob Jones", "Carol White"][i] } })
    );

    fireEvent.click(screen.getByRole("button", { name: "Remove beneficial owner 2" }));
    expect(owners().map((input) => (input as HTMLInputElement).value)).toEqual(["Alice Smith", "Carol White"]);

    type("Company name", "Acme Ltd");
    type("Country of incorporation", "GB");
    type("Date of incorporation", "2001-02-03");
    fireEvent.click(
      group(/What will the company use the account for/).getByRole("checkbox", { name: "Payroll abroad" }),
    );

    submit();
    await settle();
    const body = calls[0].body as Record<string, unknown>;
    expect(body.ubos).toEqual(["Alice Smith", "Carol White"]);
    expect(body.directors).toEqual([""]);
    expect(body.purpose).toEqual(["Payroll abroad"]);
    expect(body).toMatchObject({ name: "Acme Ltd", country: "GB", incorporation: "2001-02-03" });
    expect(Object.keys(body).sort()).toEqual(
      [
        "address",
        "country",
        "directors",
        "discovery",
        "dob",
        "first",
        "incorporation",
        "last",
        "name",
        "nature",
        "number",
        "phone",
        "purpose",
        "turnover",
        "ubos",
        "website",
      ],
    );

    const director = screen.getByLabelText(/Director full name/);
    expect(director.getAttribute("aria-invalid")).toBe("true");
    expect(document.getElementById(director.getAttribute("aria-describedby")!)!.textContent).toBe(
      "Director name is required.",
    );
    expect(owners()[1].getAttribute("aria-invalid")).toBe("true");
    // The owners come before the directors on the page.
    expect(document.activeElement).toBe(owners()[1]);

    // Rows move when one is removed: their messages go.
    fireEvent.click(screen.getByRole("button", { name: "Remove beneficial owner 1" }));
    expect(owners()).toHaveLength(1);
    expect(screen.queryByText("Beneficial owner name is required.")).toBeNull();
  });
});

describe("one form per customer type", () => {
  test("each shows its own sections only, around the same address", () => {
    render(<PersonalProfileForm countries={COUNTRIES} values={PERSONAL} />);
    expect(screen.getByRole("group", { name: "About you" })).toBeTruthy();
    expect(screen.getByRole("group", { name: "Address" })).toBeTruthy();
    expect(screen.getByText("Where you live now.")).toBeTruthy();
    expect(screen.queryByLabelText("Company name")).toBeNull();
    cleanup();
    render(<BusinessProfileForm countries={COUNTRIES} values={BUSINESS} />);
    expect(screen.getByRole("group", { name: "About the company" })).toBeTruthy();
    expect(screen.getByText("The company's registered address.")).toBeTruthy();
    expect(screen.queryByLabelText("Passport number")).toBeNull();
    expect(screen.queryByRole("checkbox", { name: "I am acting on behalf of someone else" })).toBeNull();
  });
});

describe("helpers", () => {
  test("initialValues keeps only the form's fields, typed like the blank", () => {
    const blank = { a: "", b: false, list: [""], address: { city: "" } };
    expect(initialValues(blank, { a: 5, b: "yes", list: [], address: { city: null }, extra: 1 })).toEqual({
      a: "5",
      b: false,
      list: [""],
      address: { city: "" },
    });
  });

  test("displayed: which paths an input shows", () => {
    const values = { first: "", address: { country: "" }, ubos: [""], agency: false, agency_of: "" };
    expect(displayed(values, "first")).toBe(true);
    expect(displayed(values, "address.country")).toBe(true);
    expect(displayed(values, "address")).toBe(false);
    expect(displayed(values, "ubos.0")).toBe(true);
    expect(displayed(values, "agency_of")).toBe(false);
    expect(displayed(values, "compliance")).toBe(false);
  });
});

describe("once the identity check has started (decision 085)", { timeout: FORM_TIMEOUT_MS }, () => {
  const WHY = "Your identity check compares this with your document: to change it, write to us at help@example.test.";
  const field = (label: string | RegExp) => screen.getByLabelText(label) as HTMLInputElement;
  /** The sentence a screen reader reads with the field, from its aria-describedby. */
  const said = (input: HTMLElement) =>
    (input.getAttribute("aria-describedby") ?? "").split(" ").map((id) => document.getElementById(id)?.textContent)
      .join(" ");

  test("a person's name, date of birth and country are shown read-only, saying why and whom to write to; the rest stays theirs", async () => {
    const calls = server(() => [200, { body: USER, redirect: "/identity" }]);
    const saved = profileValues("Personal", {
      first: "Ada",
      last: "Lovelace",
      dob: "1990-12-10",
      address: { line1: "1 Main Street", city: "London", postcode: "SW1A 1AA", country: "GB" },
    });
    render(<PersonalProfileForm countries={COUNTRIES} values={saved} bound={WHY} />);

    for (const [label, value] of [["First name", "Ada"], ["Last name", "Lovelace"], ["Date of birth", "1990-12-10"]]) {
      expect(field(label).readOnly, label).toBe(true);
      expect(field(label).value).toBe(value);
      expect(said(field(label))).toBe(WHY);
    }
    // The country reads as its name, still a field reached by Tab and read with its label.
    const country = within(screen.getByRole("group", { name: "Address" })).getByLabelText(
      "Country",
    ) as HTMLInputElement;
    expect(country.readOnly).toBe(true);
    expect(country.value).toBe("United Kingdom");
    expect(country.tabIndex).not.toBe(-1);
    expect(said(country)).toBe(WHY);
    expect(field("Town or city").readOnly).toBe(false);
    expect(field("Phone number").readOnly).toBe(false);

    type("Town or city", "Bath");
    submit();
    await settle();
    expect(calls[0].body).toMatchObject({
      first: "Ada",
      last: "Lovelace",
      dob: "1990-12-10",
      address: { city: "Bath", country: "GB" },
    });
  });

  test("a company's contact person's name and date of birth are read-only; its countries are not", () => {
    render(<BusinessProfileForm countries={COUNTRIES} values={BUSINESS} bound={WHY} />);
    for (const label of ["First name", "Last name", "Date of birth"]) {
      expect(field(label).readOnly, label).toBe(true);
      expect(said(field(label))).toBe(WHY);
    }
    expect(screen.getByLabelText("Country of incorporation").tagName).toBe("SELECT");
    expect(within(screen.getByRole("group", { name: "Address" })).getByLabelText("Country").tagName).toBe("SELECT");
    expect(field("Company name").readOnly).toBe(false);
  });

  test("before it has started, they are the customer's to change", () => {
    render(<PersonalProfileForm countries={COUNTRIES} values={PERSONAL} />);
    expect(field("First name").readOnly).toBe(false);
    expect(screen.getByText("You must be 18 or older.")).toBeTruthy();
    expect(within(screen.getByRole("group", { name: "Address" })).getByLabelText("Country").tagName).toBe("SELECT");
  });
});
