# Benchmark policy for the local check (issue 4): organizations own folder trees up to 8 deep,
# documents live in folders. Folder roles flow down the tree; organization admins own every
# folder of their organization; public documents are readable by the organization's members.

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
  relations = { folder: Folder, organization: Organization };

  "read" if "read" on "folder";
  "read" if is_public(resource) and "member" on "organization";
  "write" if "write" on "folder";
  "delete" if "share" on "folder";
}

test "folder roles flow down the tree" {
  setup {
    has_role(User{"ada"}, "viewer", Folder{"root"});
    has_role(User{"bo"}, "editor", Folder{"mid"});
    has_relation(Folder{"root"}, "organization", Organization{"acme"});
    has_relation(Folder{"mid"}, "parent", Folder{"root"});
    has_relation(Folder{"leaf"}, "parent", Folder{"mid"});
    has_relation(Document{"d1"}, "folder", Folder{"leaf"});
    has_relation(Document{"d1"}, "organization", Organization{"acme"});
  }
  assert allow(User{"ada"}, "read", Document{"d1"});
  assert_not allow(User{"ada"}, "write", Document{"d1"});
  assert allow(User{"bo"}, "write", Document{"d1"});
  assert_not allow(User{"bo"}, "read", Folder{"root"});
}

test "organization admins own every folder, members read public documents" {
  setup {
    has_role(User{"cy"}, "admin", Organization{"acme"});
    has_role(User{"dee"}, "member", Organization{"acme"});
    has_relation(Folder{"root"}, "organization", Organization{"acme"});
    has_relation(Folder{"leaf"}, "parent", Folder{"root"});
    has_relation(Document{"d1"}, "folder", Folder{"leaf"});
    has_relation(Document{"d1"}, "organization", Organization{"acme"});
    has_relation(Document{"d2"}, "folder", Folder{"leaf"});
    has_relation(Document{"d2"}, "organization", Organization{"acme"});
    is_public(Document{"d2"});
  }
  assert allow(User{"cy"}, "delete", Document{"d1"});
  assert_not allow(User{"dee"}, "read", Document{"d1"});
  assert allow(User{"dee"}, "read", Document{"d2"});
  assert_not allow(User{"dee"}, "write", Document{"d2"});
}
