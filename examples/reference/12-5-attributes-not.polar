# Reference §12.5: Attributes and `not`
actor User {}
resource Project { roles = ["member"]; }
resource Ticket {
  permissions = ["view", "edit"];
  relations = { project: Project };
  "view" if "member" on "project" and not is_confidential(resource);
  "view" if is_public(resource, true);
  "edit" if "view" and not has_status(resource, "closed");
}

has_permission(user: User, "view", ticket: Ticket) if
  is_confidential(ticket) and has_clearance(user, level) and level >= 3;

test "confidential and closed tickets" {
  setup {
    has_role(User{"ada"}, "member", Project{"api"});
    has_relation(Ticket{"t1"}, "project", Project{"api"});
    has_relation(Ticket{"t2"}, "project", Project{"api"});
    has_status(Ticket{"t1"}, "closed");
    is_confidential(Ticket{"t2"});
    is_public(Ticket{"t3"}, true);
    has_clearance(User{"bo"}, 4);
  }
  assert allow(User{"ada"}, "view", Ticket{"t1"});
  assert_not allow(User{"ada"}, "edit", Ticket{"t1"});
  assert_not allow(User{"ada"}, "view", Ticket{"t2"});
  assert allow(User{"bo"}, "view", Ticket{"t2"});
  assert allow(User{"zed"}, "edit", Ticket{"t3"});
}
