/**
 * A realistic policy of about `lines` lines: resource blocks with roles, permissions,
 * relations, shorthand rules (including `on` and recursion), plain rules and tests.
 */
export function generatePolicy(lines: number): string {
  const out: string[] = ["actor User {}", "actor Bot {}", ""];
  out.push(
    "global {",
    '  roles = ["admin"];',
    '  permissions = ["audit"];',
    '  "audit" if "admin";',
    "}",
    "",
  );
  let block = 0;
  while (out.length < lines) {
    const name = `Resource${block}`;
    const parent = block === 0 ? null : `Resource${block - 1}`;
    out.push(`resource ${name} {`);
    out.push('  roles = ["viewer", "editor", "owner"];');
    out.push('  permissions = ["read", "write", "delete", "share"];');
    out.push(
      parent
        ? `  relations = { parent: ${parent}, folder: ${name}, creator: User };`
        : `  relations = { folder: ${name}, creator: User };`,
    );
    out.push('  "viewer" if "editor";');
    out.push('  "editor" if "owner";');
    out.push('  "owner" if "creator";');
    out.push('  role if role on "folder";');
    if (parent) out.push('  "viewer" if "viewer" on "parent";');
    out.push('  "read" if "viewer" or global "admin";');
    out.push('  "write" if "editor" and not is_locked(resource);');
    out.push('  "delete" if "owner";');
    out.push('  "share" if "owner" or is_public(resource, true);');
    out.push("}");
    out.push("");
    out.push(`has_permission(user: User, "read", r: ${name}) if`);
    out.push("  has_grant(user, r, until) and until > @current_unix_time;");
    out.push("");
    out.push(`test "owners of ${name} can delete" {`);
    out.push("  setup {");
    out.push(`    has_role(User{"ada"}, "owner", ${name}{"r1"});`);
    out.push("  }");
    out.push(`  assert allow(User{"ada"}, "delete", ${name}{"r1"});`);
    out.push(`  assert_not allow(User{"bo"}, "delete", ${name}{"r1"});`);
    out.push("}");
    out.push("");
    block++;
  }
  return out.join("\n");
}
