# Benchmark policy for the central engine (issue 5): organizations own folder trees up to 8
# deep, documents live in folders. Folder roles flow down the tree; organization admins own the
# top folders of their organization.

actor User {}

resource Organization {
  roles = ["member", "admin"];
  permissions = ["read", "manage"];

  "member" if "admin";
  "read" if "member";
  "manage" if "admin";
}

resource Folder {
  roles = ["viewer", "editor", "owner"];
  permissions = ["read", "write", "share"];
  relations = { parent: Folder, organization: Organization };

  role if role on "parent";
  "owner" if "admin" on "organization";
  "editor" if "owner";
  "viewer" if "editor";

  "read" if "viewer";
  "write" if "editor";
  "share" if "owner";
}

resource Document {
  permissions = ["read", "write", "delete"];
  relations = { folder: Folder };

  "read" if "read" on "folder";
  "write" if "write" on "folder";
  "delete" if "share" on "folder";
}

test "folder roles flow down the tree" {
  setup {
    has_role(User{"ada"}, "viewer", Folder{"root"});
    has_role(User{"cy"}, "admin", Organization{"acme"});
    has_relation(Folder{"root"}, "organization", Organization{"acme"});
    has_relation(Folder{"mid"}, "parent", Folder{"root"});
    has_relation(Document{"d1"}, "folder", Folder{"mid"});
  }
  assert allow(User{"ada"}, "read", Document{"d1"});
  assert_not allow(User{"ada"}, "write", Document{"d1"});
  assert allow(User{"cy"}, "delete", Document{"d1"});
}
