/** `@current_unix_time`: the question's clock, an Integer of Unix seconds. */
import { integerValue } from "../core/value.js";
import type { Builtin } from "./builtin.js";

export const currentUnixTime: Builtin = {
  type: "Integer",
  value: (inputs) => integerValue(inputs.now),
};
