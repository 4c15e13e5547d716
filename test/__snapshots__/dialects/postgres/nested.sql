-- authorize
with
  polar_c0(arg0, arg2) as not materialized (SELECT * FROM nested_b2),
  polar_c1(arg0, arg2) as not materialized (SELECT * FROM nested_b1),
  polar_c2(arg0, arg1, arg2) as not materialized (SELECT * FROM nested_b0)
 select exists (select 1 from polar_c0 as f0, polar_c1 as f1, polar_c2 as f2 where f0.arg0 = 1000 and f1.arg0 = f0.arg2 and f2.arg0 = 1 and f2.arg1 in ('member', 'admin') and f2.arg2 = f1.arg2) as allowed;

-- actions
with
  polar_c0(arg0, arg2) as not materialized (SELECT * FROM nested_b2),
  polar_c1(arg0, arg2) as not materialized (SELECT * FROM nested_b1),
  polar_c2(arg0, arg1, arg2) as not materialized (SELECT * FROM nested_b0),
  polar_c3(arg0, arg2) as not materialized (SELECT * FROM nested_b3)
 select distinct a.actions from (select cast('view' as text) as actions from polar_c0 as f0, polar_c1 as f1, polar_c2 as f2 where f0.arg0 = 1000 and f1.arg0 = f0.arg2 and f2.arg0 = 1 and f2.arg1 in ('member', 'admin') and f2.arg2 = f1.arg2 union all select cast('comment' as text) as actions from polar_c0 as f0, polar_c1 as f1, polar_c2 as f2 where f0.arg0 = 1000 and f1.arg0 = f0.arg2 and f2.arg0 = 1 and f2.arg1 in ('member', 'admin') and f2.arg2 = f1.arg2 union all select cast('close' as text) as actions from polar_c0 as f0, polar_c1 as f1, polar_c2 as f2 where f0.arg0 = 1000 and f1.arg0 = f0.arg2 and f2.arg0 = 1 and f2.arg1 = 'admin' and f2.arg2 = f1.arg2 union all select cast('close' as text) as actions from polar_c3 as f0 where f0.arg0 = 1000 and f0.arg2 = 1) as a;

-- list
t.id = any(array((with
  polar_c0(arg0, arg2) as not materialized (SELECT * FROM nested_b2),
  polar_c1(arg0, arg2) as not materialized (SELECT * FROM nested_b1),
  polar_c2(arg0, arg1, arg2) as not materialized (SELECT * FROM nested_b0)
 select f0.arg0 from polar_c0 as f0, polar_c1 as f1, polar_c2 as f2 where f2.arg0 = 1 and f2.arg1 in ('member', 'admin') and f2.arg2 = f1.arg2 and f1.arg0 = f0.arg2 and f0.arg0 is not null)));
