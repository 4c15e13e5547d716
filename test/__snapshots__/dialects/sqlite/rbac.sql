-- authorize
with
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM rbac_b0)
 select exists (select 1 from polar_c0 as f0 where f0.arg0 = 1 and f0.arg1 collate binary in ('viewer', 'editor', 'owner') and f0.arg2 = 10) as allowed;

-- actions
with
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM rbac_b0)
 select distinct a.actions from (select 'read' as actions from polar_c0 as f0 where f0.arg0 = 1 and f0.arg1 collate binary in ('viewer', 'editor', 'owner') and f0.arg2 = 10 union all select 'write' as actions from polar_c0 as f0 where f0.arg0 = 1 and f0.arg1 collate binary in ('editor', 'owner') and f0.arg2 = 10 union all select 'invite' as actions from polar_c0 as f0 where f0.arg0 = 1 and f0.arg1 = 'owner' collate binary and f0.arg2 = 10) as a;

-- list
t.id in (with
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM rbac_b0)
 select f0.arg2 from polar_c0 as f0 where f0.arg0 = 1 and f0.arg1 collate binary in ('viewer', 'editor', 'owner') and f0.arg2 is not null);
