-- authorize
with
  polar_c0(arg0, arg1, arg2) as (SELECT * FROM rbac_b0)
 select exists (select 1 from polar_c0 as f0 where f0.arg0 = 1 and f0.arg1 in (cast('viewer' as binary), cast('editor' as binary), cast('owner' as binary)) and f0.arg2 = 10) as allowed;

-- actions
with
  polar_c0(arg0, arg1, arg2) as (SELECT * FROM rbac_b0)
 select convert(min(d.actions) using utf8mb4) as actions from (select 'read' as actions from polar_c0 as f0 where f0.arg0 = 1 and f0.arg1 in (cast('viewer' as binary), cast('editor' as binary), cast('owner' as binary)) and f0.arg2 = 10 union all select 'write' as actions from polar_c0 as f0 where f0.arg0 = 1 and f0.arg1 in (cast('editor' as binary), cast('owner' as binary)) and f0.arg2 = 10 union all select 'invite' as actions from polar_c0 as f0 where f0.arg0 = 1 and f0.arg1 = cast('owner' as binary) and f0.arg2 = 10) as d group by cast(d.actions as binary);

-- list
t.id in (with
  polar_c0(arg0, arg1, arg2) as (SELECT * FROM rbac_b0)
 select f0.arg2 from polar_c0 as f0 where f0.arg0 = 1 and f0.arg1 in (cast('viewer' as binary), cast('editor' as binary), cast('owner' as binary)) and f0.arg2 is not null);
