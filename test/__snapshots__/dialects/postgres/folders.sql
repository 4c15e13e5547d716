-- authorize
with recursive
  polar_c0(arg0, arg2) as not materialized (SELECT * FROM folders_b0),
  polar_c1(arg0, arg1, arg2) as not materialized (SELECT * FROM folders_b2),
  polar_r0(s2) as (select cast(1 as integer) union select cast(q0.arg2 as integer) from polar_r0 as rec, polar_c0 as q0 where q0.arg0 = rec.s2 and q0.arg2 is not null)
 select exists (select 1 from polar_r0 as f0, polar_c1 as f1 where f1.arg0 = 'ada' and f1.arg1 in ('reader', 'writer') and f1.arg2 = f0.s2) as allowed;

-- actions
with recursive
  polar_c0(arg0, arg2) as not materialized (SELECT * FROM folders_b0),
  polar_c1(arg0, arg1, arg2) as not materialized (SELECT * FROM folders_b2),
  polar_r0(s2) as (select cast(1 as integer) union select cast(q0.arg2 as integer) from polar_r0 as rec, polar_c0 as q0 where q0.arg0 = rec.s2 and q0.arg2 is not null)
 select distinct a.actions from (select cast('list' as text) as actions from polar_r0 as f0, polar_c1 as f1 where f1.arg0 = 'ada' and f1.arg1 in ('reader', 'writer') and f1.arg2 = f0.s2 union all select cast('upload' as text) as actions from polar_r0 as f0, polar_c1 as f1 where f1.arg0 = 'ada' and f1.arg1 = 'writer' and f1.arg2 = f0.s2) as a;

-- list
t.id = any(array((with recursive
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM folders_b2),
  polar_c1(arg0, arg2) as not materialized (SELECT * FROM folders_b0),
  polar_r0(arg2) as (select cast(q0.arg2 as integer) from polar_c0 as q0 where q0.arg0 = 'ada' and q0.arg1 in ('reader', 'writer') and q0.arg2 is not null union select cast(q0.arg0 as integer) from polar_r0 as rec, polar_c1 as q0 where rec.arg2 = q0.arg2 and q0.arg0 is not null)
 select f0.arg2 from polar_r0 as f0)));
