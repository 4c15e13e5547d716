-- The application's own tables (what bindings.yaml reads).
CREATE TABLE repositories (id integer PRIMARY KEY, org_id text NOT NULL, name text NOT NULL, is_public boolean NOT NULL);
CREATE TABLE issues (id integer PRIMARY KEY, repo_id integer NOT NULL REFERENCES repositories, creator_id text NOT NULL, title text NOT NULL);
INSERT INTO repositories VALUES (1, 'acme', 'anvil', false), (2, 'acme', 'rocket', false), (3, 'globex', 'gears', true);
INSERT INTO issues VALUES (7, 1, 'carol', 'anvil is heavy'), (8, 2, 'bob', 'rocket misfires'), (9, 3, 'dave', 'gears grind');
