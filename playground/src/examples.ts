/**
 * The examples the page starts from. Each one's tables hold exactly the facts of the bound
 * predicates that its facts list also holds, so the SQL's rows agree with the evaluator's answer.
 */

/** Everything the page keeps (in the URL fragment too). */
export interface PlaygroundState {
  readonly policy: string;
  readonly facts: string;
  readonly bindings: string;
  readonly schema: string;
  readonly actor: string;
  readonly action: string;
  readonly resource: string;
  readonly dialect: string;
}

export interface Example {
  readonly name: string;
  readonly title: string;
  readonly state: PlaygroundState;
}

const quickstart: PlaygroundState = {
  policy: `# Organizations own repositories; repositories hold issues.
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
`,
  facts: `# Roles (inlined into the SQL as central facts)
has_role(User{"alice"}, "owner", Organization{"acme"})
has_role(User{"bob"}, "member", Organization{"acme"})
has_role(User{"carol"}, "member", Organization{"globex"})
# The same facts as the tables below (the SQL reads these from the tables)
has_relation(Repository{"1"}, "organization", Organization{"acme"})
has_relation(Repository{"2"}, "organization", Organization{"acme"})
has_relation(Repository{"3"}, "organization", Organization{"globex"})
is_public(Repository{"1"}, false)
is_public(Repository{"2"}, false)
is_public(Repository{"3"}, true)
has_relation(Issue{"7"}, "repository", Repository{"1"})
has_relation(Issue{"8"}, "repository", Repository{"2"})
has_relation(Issue{"9"}, "repository", Repository{"3"})
has_relation(Issue{"7"}, "creator", User{"carol"})
has_relation(Issue{"8"}, "creator", User{"bob"})
has_relation(Issue{"9"}, "creator", User{"dave"})
`,
  bindings: `# Facts that live in the application's tables: one SELECT per fact signature.
facts:
  "has_relation(Repository:_, organization, Organization:_)":
    query: SELECT id, org_id FROM repositories
  "is_public(Repository:_, Boolean:_)":
    query: SELECT id, is_public FROM repositories
  "has_relation(Issue:_, repository, Repository:_)":
    query: SELECT id, repo_id FROM issues
  "has_relation(Issue:_, creator, User:_)":
    query: SELECT id, creator_id FROM issues
sql_types:
  Repository: integer
  Issue: integer
  Organization: text
  User: text
`,
  schema: `-- The application's own tables (what the bindings read).
CREATE TABLE repositories (id integer PRIMARY KEY, org_id text NOT NULL, name text NOT NULL, is_public boolean NOT NULL);
CREATE TABLE issues (id integer PRIMARY KEY, repo_id integer NOT NULL REFERENCES repositories, creator_id text NOT NULL, title text NOT NULL);
INSERT INTO repositories VALUES (1, 'acme', 'anvil', false), (2, 'acme', 'rocket', false), (3, 'globex', 'gears', true);
INSERT INTO issues VALUES (7, 1, 'carol', 'anvil is heavy'), (8, 2, 'bob', 'rocket misfires'), (9, 3, 'dave', 'gears grind');
`,
  actor: "User:bob",
  action: "read",
  resource: "Repository:1",
  dialect: "postgres",
};

const github: PlaygroundState = {
  policy: `# GitHub-like: organization roles flow to repositories; repository roles nest.
actor User {}

resource Organization {
  roles = ["member", "admin"];
  permissions = ["read", "invite"];

  "member" if "admin";
  "read" if "member";
  "invite" if "admin";
}

resource Repository {
  roles = ["reader", "writer", "admin"];
  permissions = ["read", "push", "delete"];
  relations = { organization: Organization };

  "writer" if "admin";
  "reader" if "writer";
  "reader" if "member" on "organization";
  "admin" if "admin" on "organization";

  "read" if "reader" or is_public(resource, true);
  "push" if "writer";
  "delete" if "admin";
}

resource PullRequest {
  permissions = ["read", "merge"];
  relations = { repository: Repository, author: User };

  "read" if "read" on "repository";
  "merge" if "push" on "repository";
}

test "org members read, writers merge" {
  setup {
    has_role(User{"ana"}, "member", Organization{"octo"});
    has_role(User{"ben"}, "writer", Repository{"hub"});
    has_relation(Repository{"hub"}, "organization", Organization{"octo"});
    has_relation(PullRequest{"42"}, "repository", Repository{"hub"});
  }
  assert allow(User{"ana"}, "read", PullRequest{"42"});
  assert_not allow(User{"ana"}, "merge", PullRequest{"42"});
  assert allow(User{"ben"}, "merge", PullRequest{"42"});
}
`,
  facts: `has_role(User{"ana"}, "member", Organization{"octo"})
has_role(User{"ben"}, "writer", Repository{"hub"})
has_role(User{"cy"}, "admin", Organization{"octo"})
has_relation(Repository{"hub"}, "organization", Organization{"octo"})
has_relation(Repository{"lab"}, "organization", Organization{"octo"})
has_relation(Repository{"pub"}, "organization", Organization{"other"})
is_public(Repository{"hub"}, false)
is_public(Repository{"lab"}, false)
is_public(Repository{"pub"}, true)
has_relation(PullRequest{"42"}, "repository", Repository{"hub"})
has_relation(PullRequest{"43"}, "repository", Repository{"lab"})
`,
  bindings: `facts:
  "has_relation(Repository:_, organization, Organization:_)":
    query: SELECT name, org FROM repos
  "is_public(Repository:_, Boolean:_)":
    query: SELECT name, public FROM repos
  "has_relation(PullRequest:_, repository, Repository:_)":
    query: SELECT number, repo FROM pulls
sql_types:
  Repository: text
  PullRequest: text
  Organization: text
  User: text
`,
  schema: `CREATE TABLE repos (name text PRIMARY KEY, org text NOT NULL, public boolean NOT NULL);
CREATE TABLE pulls (number text PRIMARY KEY, repo text NOT NULL REFERENCES repos);
INSERT INTO repos VALUES ('hub', 'octo', false), ('lab', 'octo', false), ('pub', 'other', true);
INSERT INTO pulls VALUES ('42', 'hub'), ('43', 'lab');
`,
  actor: "User:ana",
  action: "read",
  resource: "Repository",
  dialect: "postgres",
};

const drive: PlaygroundState = {
  policy: `# Google-Drive-like: folders nest; a role on a folder holds on everything inside it.
actor User {}

resource Folder {
  roles = ["viewer", "editor", "owner"];
  permissions = ["read", "write", "share"];
  relations = { parent: Folder };

  "editor" if "owner";
  "viewer" if "editor";
  "viewer" if "viewer" on "parent";
  "editor" if "editor" on "parent";
  "owner" if "owner" on "parent";

  "read" if "viewer";
  "write" if "editor";
  "share" if "owner";
}

resource Document {
  roles = ["viewer", "editor", "owner"];
  permissions = ["read", "write", "share"];
  relations = { folder: Folder };

  "editor" if "owner";
  "viewer" if "editor";
  "viewer" if "viewer" on "folder";
  "editor" if "editor" on "folder";
  "owner" if "owner" on "folder";

  "read" if "viewer";
  "write" if "editor";
  "share" if "owner";
}

test "roles flow down the folder tree" {
  setup {
    has_role(User{"dee"}, "viewer", Folder{"root"});
    has_relation(Folder{"plans"}, "parent", Folder{"root"});
    has_relation(Document{"q3"}, "folder", Folder{"plans"});
  }
  assert allow(User{"dee"}, "read", Document{"q3"});
  assert_not allow(User{"dee"}, "write", Document{"q3"});
}
`,
  facts: `has_role(User{"dee"}, "viewer", Folder{"root"})
has_role(User{"eli"}, "editor", Folder{"plans"})
has_role(User{"fay"}, "owner", Document{"memo"})
has_relation(Folder{"plans"}, "parent", Folder{"root"})
has_relation(Folder{"q3-drafts"}, "parent", Folder{"plans"})
has_relation(Document{"q3"}, "folder", Folder{"q3-drafts"})
has_relation(Document{"memo"}, "folder", Folder{"root"})
has_relation(Document{"notes"}, "folder", Folder{"plans"})
`,
  bindings: `facts:
  "has_relation(Folder:_, parent, Folder:_)":
    query: SELECT id, parent_id FROM folders WHERE parent_id IS NOT NULL
  "has_relation(Document:_, folder, Folder:_)":
    query: SELECT id, folder_id FROM documents
sql_types:
  Folder: text
  Document: text
  User: text
`,
  schema: `CREATE TABLE folders (id text PRIMARY KEY, parent_id text REFERENCES folders);
CREATE TABLE documents (id text PRIMARY KEY, folder_id text NOT NULL REFERENCES folders);
INSERT INTO folders VALUES ('root', NULL), ('plans', 'root'), ('q3-drafts', 'plans');
INSERT INTO documents VALUES ('q3', 'q3-drafts'), ('memo', 'root'), ('notes', 'plans');
`,
  actor: "User:dee",
  action: "read",
  resource: "Document",
  dialect: "postgres",
};

export const EXAMPLES: readonly Example[] = [
  { name: "quickstart", title: "Quickstart", state: quickstart },
  { name: "github", title: "GitHub-like", state: github },
  { name: "drive", title: "Google-Drive-like", state: drive },
];

export const DEFAULT_STATE: PlaygroundState = quickstart;
