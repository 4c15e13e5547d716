# Reference §12.1: RBAC with a role hierarchy
actor User {}
resource Workspace {
  roles = ["viewer", "editor", "owner"];
  permissions = ["read", "write", "invite"];
  "viewer" if "editor";
  "editor" if "owner";
  "read" if "viewer";
  "write" if "editor";
  "invite" if "owner";
}

test "owners inherit every lower role" {
  setup {
    has_role(User{"ada"}, "owner", Workspace{"w1"});
    has_role(User{"bo"}, "viewer", Workspace{"w1"});
  }
  assert allow(User{"ada"}, act: String, Workspace{"w1"}) iff act in ["read", "write", "invite"];
  assert allow(User{"bo"}, act: String, Workspace{"w1"}) iff act in ["read"];
  assert_not allow(User{"bo"}, "read", Workspace{"w2"});
  assert has_role(User{"ada"}, "viewer", Workspace{"w1"});
}
