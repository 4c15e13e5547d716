/** Must not type-check: a request without its `action`, and a `column` that is not a string. */
import { checkPolicyOrThrow, listQueryExpression } from "polar-sql";

const program = checkPolicyOrThrow([{ name: "p.polar", text: "actor User {}" }]);
listQueryExpression(program, {
  query: { actor_type: "User", actor_id: "ada", resource_type: "Doc" },
  column: "docs.id",
  data_bindings: "facts: {}",
});
listQueryExpression(program, {
  query: { actor_type: "User", actor_id: "ada", action: "read", resource_type: "Doc" },
  column: 7,
  data_bindings: "facts: {}",
});
