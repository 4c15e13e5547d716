# Reference §12.4: Global roles
actor User {}
global {
  roles = ["support", "superuser"];
  permissions = ["view_audit_log"];
  "support" if "superuser";
  "view_audit_log" if "support";
}

resource Team {
  roles = ["member", "lead"];
  permissions = ["view", "manage"];
  "member" if "lead";
  "view" if "member" or global "support";
  "manage" if "lead" or global "superuser";
}

test "global roles reach every team" {
  setup {
    has_role(User{"ada"}, "superuser");
    has_role(User{"bo"}, "support");
    has_role(User{"cy"}, "member", Team{"core"});
  }
  assert allow(User{"ada"}, "manage", Team{"core"});
  assert allow(User{"bo"}, "view", Team{"any-team"});
  assert_not allow(User{"bo"}, "manage", Team{"core"});
  assert has_permission(User{"ada"}, "view_audit_log");
  assert_not has_permission(User{"cy"}, "view_audit_log");
}
