# Reference §12.3: Recursive folders
actor User {}
resource Folder {
  roles = ["reader", "writer"];
  permissions = ["list", "upload"];
  relations = { parent: Folder };
  role if role on "parent";
  "reader" if "writer";
  "list" if "reader";
  "upload" if "writer";
}
resource Document {
  permissions = ["open", "edit"];
  relations = { folder: Folder };
  "open" if "list" on "folder";
  "edit" if "upload" on "folder";
}

test "roles flow down any depth of folders" {
  setup {
    has_role(User{"ada"}, "writer", Folder{"root"});
    has_role(User{"bo"}, "reader", Folder{"mid"});
    has_relation(Folder{"mid"}, "parent", Folder{"root"});
    has_relation(Folder{"leaf"}, "parent", Folder{"mid"});
    has_relation(Document{"plan.md"}, "folder", Folder{"leaf"});
  }
  assert allow(User{"ada"}, "edit", Document{"plan.md"});
  assert allow(User{"bo"}, "open", Document{"plan.md"});
  assert_not allow(User{"bo"}, "edit", Document{"plan.md"});
  assert_not allow(User{"bo"}, "list", Folder{"root"});
}

test "cyclic folder data terminates" {
  setup {
    has_relation(Folder{"a"}, "parent", Folder{"b"});
    has_relation(Folder{"b"}, "parent", Folder{"a"});
  }
  assert_not allow(User{"ada"}, "list", Folder{"a"});
}
