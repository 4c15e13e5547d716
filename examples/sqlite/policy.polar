# Documents in nested folders; a role on a folder reaches every folder and document below it.
actor User {}

resource Folder {
  roles = ["viewer", "editor"];
  relations = { parent: Folder };
  "viewer" if "editor";
  "viewer" if "viewer" on "parent";
  "editor" if "editor" on "parent";
}

resource Document {
  roles = ["viewer", "editor"];
  permissions = ["read", "edit"];
  relations = { folder: Folder };
  "viewer" if "viewer" on "folder";
  "editor" if "editor" on "folder";
  "viewer" if "editor";
  "read" if "viewer";
  "edit" if "editor";
}
