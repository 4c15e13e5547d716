# GitClub: organizations own repositories; repositories hold issues and nested folders of
# files. Shows global roles, `extends`, relations used as roles, recursive folders, a public
# flag, negation, time-limited invitations and a custom `allow`.

actor User {}

# Service accounts: users that may only read and clone (see the custom `allow` below).
actor Bot extends User {}

global {
  roles = ["staff", "admin"];
  permissions = ["view_audit_log", "manage_billing"];

  "staff" if "admin";
  "view_audit_log" if "staff";
  "manage_billing" if "admin";
}

resource Organization {
  roles = ["member", "billing", "owner"];
  permissions = ["read", "list_members", "create_repository", "manage"];

  "member" if "owner";
  "billing" if "owner";

  "read" if "member";
  "list_members" if "member";
  "create_repository" if "owner";
  "manage" if "owner" or global "admin";
}

resource Repository {
  roles = ["reader", "triager", "writer", "maintainer", "admin"];
  permissions = [
    "read", "clone", "push", "create_issue", "close_issue", "delete", "manage_settings",
  ];
  relations = { organization: Organization };

  "admin" if "owner" on "organization";
  "reader" if "member" on "organization";
  "maintainer" if "admin";
  "writer" if "maintainer";
  "triager" if "writer";
  "reader" if "triager";

  "read" if "reader" or is_public(resource, true);
  "clone" if "read";
  "push" if "writer" and not is_archived(resource);
  "create_issue" if "read" and not is_archived(resource);
  "close_issue" if "triager";
  "delete" if "admin" or global "admin";
  "manage_settings" if "admin";
}

# What every item inside a repository has; `Issue`, `Folder` and `File` extend it.
resource RepositoryItem {
  permissions = ["read", "edit", "delete"];
  relations = { repository: Repository, creator: User };
}

resource Issue extends RepositoryItem {
  permissions = ["comment", "close", "assign"];
  relations = { assignee: User };

  "read" if "read" on "repository";
  "comment" if "read" and not is_locked(resource);
  "edit" if "creator" or "triager" on "repository";
  "close" if "close_issue" on "repository" or "creator" or "assignee";
  "assign" if "triager" on "repository";
  "delete" if "admin" on "repository";
}

resource Folder extends RepositoryItem {
  roles = ["viewer", "editor"];
  relations = { parent: Folder };

  # roles on a folder hold on every folder below it
  role if role on "parent";
  "viewer" if "reader" on "repository";
  "editor" if "writer" on "repository";
  "viewer" if "editor";

  "read" if "viewer";
  "edit" if "editor";
  "delete" if "editor" and "creator";
}

resource File extends RepositoryItem {
  relations = { folder: Folder };

  "read" if "viewer" on "folder";
  "edit" if "editor" on "folder";
  "delete" if "edit" or "maintainer" on "repository";
}

declare is_public(Repository, Boolean);

# Invitations grant read access until they expire.
has_permission(user: User, "read", repo: Repository) if
  has_invitation(user, repo, expires_at) and expires_at > @current_unix_time;

# Suspended users lose every permission; bots are handled by the next rule.
allow(user: User, action: String, resource: Resource) if
  has_permission(user, action, resource) and
  not is_suspended(user) and
  not user matches Bot;

allow(bot: Bot, action: String, repo: Repository) if
  action in ["read", "clone"] and has_permission(bot, action, repo);

test fixture acme {
  has_role(User{"alice"}, "owner", Organization{"acme"});
  has_role(User{"bob"}, "member", Organization{"acme"});
  has_relation(Repository{"anvil"}, "organization", Organization{"acme"});
  has_relation(Repository{"rocket"}, "organization", Organization{"acme"});
  is_public(Repository{"rocket"}, true);
  has_role(User{"carol"}, "triager", Repository{"anvil"});
  has_relation(Issue{"anvil#1"}, "repository", Repository{"anvil"});
  has_relation(Issue{"anvil#1"}, "creator", User{"dave"});
  has_relation(Folder{"src"}, "repository", Repository{"anvil"});
  has_relation(Folder{"src/lib"}, "parent", Folder{"src"});
  has_relation(File{"src/lib/a.ts"}, "folder", Folder{"src/lib"});
}

test "organization owners administer every repository" {
  setup {
    fixture acme;
  }
  assert allow(User{"alice"}, "delete", Repository{"anvil"});
  assert allow(User{"alice"}, "manage_settings", Repository{"rocket"});
  assert_not allow(User{"bob"}, "push", Repository{"anvil"});
  assert allow(User{"bob"}, action: String, Repository{"anvil"})
    iff action in ["read", "clone", "create_issue"];
}

test "public repositories are readable by anyone" {
  setup {
    fixture acme;
  }
  assert allow(User{"stranger"}, "read", Repository{"rocket"});
  assert allow(User{"stranger"}, "create_issue", Repository{"rocket"});
  assert_not allow(User{"stranger"}, "read", Repository{"anvil"});
}

test "archived repositories accept no pushes" {
  setup {
    fixture acme;
    is_archived(Repository{"anvil"});
  }
  assert_not allow(User{"alice"}, "push", Repository{"anvil"});
  assert allow(User{"alice"}, "read", Repository{"anvil"});
}

test "issues" {
  setup {
    fixture acme;
    is_locked(Issue{"anvil#1"});
  }
  assert allow(User{"dave"}, "close", Issue{"anvil#1"});
  assert allow(User{"carol"}, "assign", Issue{"anvil#1"});
  assert allow(User{"bob"}, "read", Issue{"anvil#1"});
  assert_not allow(User{"bob"}, "comment", Issue{"anvil#1"});
  assert_not allow(User{"dave"}, "read", Issue{"anvil#1"});
}

test "folder roles flow down nested folders" {
  setup {
    fixture acme;
  }
  assert allow(User{"bob"}, "read", File{"src/lib/a.ts"});
  assert_not allow(User{"bob"}, "edit", File{"src/lib/a.ts"});
  assert allow(User{"alice"}, "edit", File{"src/lib/a.ts"});
}

test "global admins" {
  setup {
    has_role(User{"root"}, "admin");
  }
  assert allow(User{"root"}, "delete", Repository{"any"});
  assert allow(User{"root"}, "manage", Organization{"acme"});
  assert has_permission(User{"root"}, "view_audit_log");
  assert_not has_permission(User{"root"}, "read", Repository{"any"});
}

test "bots only read and clone" {
  setup {
    fixture acme;
    has_role(Bot{"ci"}, "writer", Repository{"anvil"});
  }
  assert allow(Bot{"ci"}, "clone", Repository{"anvil"});
  assert_not allow(Bot{"ci"}, "push", Repository{"anvil"});
}

test "suspended users and invitations" {
  setup {
    fixture acme;
    is_suspended(User{"alice"});
    has_invitation(User{"eve"}, Repository{"anvil"}, 4102444800);
    has_invitation(User{"fay"}, Repository{"anvil"}, 946684800);
  }
  assert_not allow(User{"alice"}, "read", Repository{"anvil"});
  assert allow(User{"eve"}, "read", Repository{"anvil"});
  assert_not allow(User{"fay"}, "read", Repository{"anvil"});
}
