# Quick start: organizations own repositories; repositories hold issues.
# Roles are stored in polar-sql (central facts); repositories and issues live in the
# application's own database and are described by bindings.yaml (local facts).

actor User {}

resource Organization {
  roles = ["member", "owner"];
  permissions = ["read", "create_repository"];

  "member" if "owner";
  "read" if "member";
  "create_repository" if "owner";
}

resource Repository {
  roles = ["reader", "maintainer"];
  permissions = ["read", "push", "delete"];
  relations = { organization: Organization };

  "reader" if "member" on "organization";
  "maintainer" if "owner" on "organization";
  "reader" if "maintainer";

  "read" if "reader" or is_public(resource, true);
  "push" if "maintainer";
  "delete" if "maintainer";
}

resource Issue {
  permissions = ["read", "close"];
  relations = { repository: Repository, creator: User };

  "read" if "read" on "repository";
  "close" if "creator" or "push" on "repository";
}

test "members read, owners push, creators close" {
  setup {
    has_role(User{"alice"}, "owner", Organization{"acme"});
    has_role(User{"bob"}, "member", Organization{"acme"});
    has_relation(Repository{"1"}, "organization", Organization{"acme"});
    has_relation(Issue{"7"}, "repository", Repository{"1"});
    has_relation(Issue{"7"}, "creator", User{"carol"});
  }
  assert allow(User{"alice"}, "push", Repository{"1"});
  assert allow(User{"bob"}, "read", Issue{"7"});
  assert_not allow(User{"bob"}, "close", Issue{"7"});
  assert allow(User{"carol"}, "close", Issue{"7"});
}
