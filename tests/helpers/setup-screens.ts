import { configure } from "@testing-library/react";

/**
 * Waiting for what a screen shows (findBy…, waitFor) is not timing it: under a whole test run on
 * two cores, a render after a faked call has taken just over testing-library's default second. A
 * screen that never shows the text still fails, after ten.
 */
configure({ asyncUtilTimeout: 10_000 });
