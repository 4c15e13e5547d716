# Reference §12.2: Nested parent relations with `on`
actor User {}
resource Workspace { roles = ["member", "admin"]; "member" if "admin"; }
resource Project {
  roles = ["contributor", "maintainer"];
  permissions = ["view", "edit"];
  relations = { workspace: Workspace };
  "contributor" if "member" on "workspace";
  "maintainer" if "admin" on "workspace";
  "contributor" if "maintainer";
  "view" if "contributor";
  "edit" if "maintainer";
}
resource Ticket {
  permissions = ["view", "comment", "close"];
  relations = { project: Project, reporter: User };
  "view" if "view" on "project";
  "comment" if "view";
  "close" if "edit" on "project" or "reporter";
}

test "access flows workspace -> project -> ticket" {
  setup {
    has_role(User{"ada"}, "member", Workspace{"acme"});
    has_role(User{"cy"}, "admin", Workspace{"acme"});
    has_relation(Project{"api"}, "workspace", Workspace{"acme"});
    has_relation(Ticket{"t1"}, "project", Project{"api"});
    has_relation(Ticket{"t1"}, "reporter", User{"dee"});
  }
  assert allow(User{"ada"}, "comment", Ticket{"t1"});
  assert_not allow(User{"ada"}, "close", Ticket{"t1"});
  assert allow(User{"cy"}, "close", Ticket{"t1"});
  assert allow(User{"dee"}, "close", Ticket{"t1"});
  assert_not allow(User{"dee"}, "view", Ticket{"t1"});
}
