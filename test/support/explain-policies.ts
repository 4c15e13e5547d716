/**
 * Random valid policies for the explain properties: one to three resource types with roles,
 * permissions and relations between them, shorthand rules drawn from every kind the language
 * has (implication, `on` a relation, recursion through a relation, `or`, `and not`), a rule with
 * a comparison, and the space of facts a random fact set draws from. Negation is over roles and
 * a base predicate only, so every policy is stratified.
 */
import fc from "fast-check";
import type { GroundFact, Value } from "../../src/core/value.js";

export interface RandomPolicy {
  readonly text: string;
  readonly actors: readonly Value[];
  readonly resources: readonly Value[];
  readonly actions: readonly string[];
  readonly space: readonly GroundFact[];
}

const ROLES = ["reader", "writer", "owner"] as const;
const PERMISSIONS = ["read", "edit", "share"] as const;
const RELATIONS = ["parent", "home"] as const;

interface TypeShape {
  readonly name: string;
  readonly roles: readonly string[];
  readonly permissions: readonly string[];
  /** Relation name -> index of the target type. */
  readonly relations: readonly (readonly [string, number])[];
}

const shapeOf = (index: number, typeCount: number) =>
  fc
    .record({
      roles: fc.subarray([...ROLES], { minLength: 1 }),
      permissions: fc.subarray([...PERMISSIONS], { minLength: 1 }),
      relations: fc
        .subarray([...RELATIONS])
        .chain((names) =>
          fc.tuple(...names.map((name) => fc.tuple(fc.constant(name), fc.nat(typeCount - 1)))),
        ),
    })
    .map((shape): TypeShape => ({ name: `R${index}`, ...shape }));

/** A shorthand rule of a block, drawn from what the block and its relations declare. */
function shorthand(types: readonly TypeShape[], self: TypeShape): fc.Arbitrary<string> {
  const role = fc.constantFrom(...self.roles);
  const permission = fc.constantFrom(...self.permissions);
  const options: fc.Arbitrary<string>[] = [
    fc.tuple(role, role).map(([a, b]) => `"${a}" if "${b}";`),
    fc.tuple(permission, role).map(([p, r]) => `"${p}" if "${r}";`),
    fc.tuple(permission, role, role).map(([p, a, b]) => `"${p}" if "${a}" or "${b}";`),
    fc.tuple(permission, role, role).map(([p, a, b]) => `"${p}" if "${a}" and not "${b}";`),
    fc.tuple(permission, role).map(([p, r]) => `"${p}" if "${r}" and not is_locked(resource);`),
  ];
  for (const [relation, target] of self.relations) {
    const other = types[target]!;
    const theirRole = fc.constantFrom(...other.roles);
    const theirPermission = fc.constantFrom(...other.permissions);
    options.push(fc.tuple(role, theirRole).map(([a, b]) => `"${a}" if "${b}" on "${relation}";`));
    options.push(
      fc.tuple(permission, theirPermission).map(([a, b]) => `"${a}" if "${b}" on "${relation}";`),
    );
    if (other === self) options.push(fc.constant(`role if role on "${relation}";`));
  }
  return fc.oneof(...options);
}

export const randomPolicy: fc.Arbitrary<RandomPolicy> = fc
  .integer({ min: 1, max: 3 })
  .chain((count) => fc.tuple(...Array.from({ length: count }, (_, i) => shapeOf(i, count))))
  .chain((types) =>
    fc
      .tuple(
        fc.tuple(
          ...types.map((t) => fc.array(shorthand(types, t), { minLength: 1, maxLength: 5 })),
        ),
        fc.boolean(),
      )
      .map(([rules, withLevel]) => build(types, rules, withLevel)),
  );

function build(
  types: readonly TypeShape[],
  rules: readonly (readonly string[])[],
  withLevel: boolean,
): RandomPolicy {
  const lines = ["actor User {}"];
  types.forEach((type, i) => {
    lines.push(`resource ${type.name} {`);
    lines.push(`  roles = [${type.roles.map((r) => `"${r}"`).join(", ")}];`);
    lines.push(`  permissions = [${type.permissions.map((p) => `"${p}"`).join(", ")}];`);
    if (type.relations.length) {
      const fields = type.relations.map(([name, target]) => `${name}: ${types[target]!.name}`);
      lines.push(`  relations = { ${fields.join(", ")} };`);
    }
    for (const rule of rules[i]!) lines.push(`  ${rule}`);
    lines.push("}");
  });
  const first = types[0]!;
  if (withLevel) {
    lines.push(
      `has_permission(user: User, "${first.permissions[0]}", r: ${first.name}) if`,
      "  level(user, l) and min_level(r, m) and l >= m;",
    );
  }
  const users = ["u1", "u2"].map((id) => ({ type: "User", id }));
  const resources = types.flatMap((t) => ["1", "2"].map((id) => ({ type: t.name, id })));
  const strings = (names: readonly string[]) => names.map((id) => ({ type: "String", id }));
  const space: GroundFact[] = [];
  for (const type of types) {
    const own = resources.filter((r) => r.type === type.name);
    for (const user of users) {
      for (const role of type.roles) {
        for (const r of own) space.push(fact("has_role", user, strings([role])[0]!, r));
      }
    }
    for (const [relation, target] of type.relations) {
      const targets = resources.filter((r) => r.type === types[target]!.name);
      for (const r of own) {
        for (const t of targets) space.push(fact("has_relation", r, strings([relation])[0]!, t));
      }
    }
    for (const r of own) space.push(fact("is_locked", r));
  }
  if (withLevel) {
    for (const user of users) {
      for (const n of ["1", "3"]) space.push(fact("level", user, { type: "Integer", id: n }));
    }
    for (const r of resources.filter((x) => x.type === first.name)) {
      space.push(fact("min_level", r, { type: "Integer", id: "2" }));
    }
  }
  return {
    text: `${lines.join("\n")}\n`,
    actors: users,
    resources,
    actions: [...PERMISSIONS, "undeclared"],
    space,
  };
}

function fact(predicate: string, ...args: Value[]): GroundFact {
  return { predicate, args };
}
