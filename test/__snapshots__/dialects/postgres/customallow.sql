-- authorize
with
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM customallow_b0),
  polar_c1(arg0, arg1, arg2) as not materialized (SELECT * FROM customallow_b1)
 select exists (select 1 from polar_c0 as f0 where f0.arg0 = 'ada' and f0.arg1 = 'viewer' and f0.arg2 = 'q3') or exists (select 1 from polar_c1 as f0 where f0.arg0 = 'ada' and f0.arg1 = 'q3' and f0.arg2 > 1700000000) as allowed;

-- actions
with
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM customallow_b0),
  polar_c1(arg0, arg1, arg2) as not materialized (SELECT * FROM customallow_b1)
 select distinct a.actions from (select cast('read' as text) as actions from polar_c0 as f0 where f0.arg0 = 'ada' and f0.arg1 = 'viewer' and f0.arg2 = 'q3' union all select cast('read' as text) as actions from polar_c1 as f0 where f0.arg0 = 'ada' and f0.arg1 = 'q3' and f0.arg2 > 1700000000) as a;

-- list
t.id = any(array((with
  polar_c0(arg0, arg1, arg2) as not materialized (SELECT * FROM customallow_b0),
  polar_c1(arg0, arg1, arg2) as not materialized (SELECT * FROM customallow_b1)
 select f0.arg2 from polar_c0 as f0 where f0.arg0 = 'ada' and f0.arg1 = 'viewer' and f0.arg2 is not null union all select f0.arg1 from polar_c1 as f0 where f0.arg0 = 'ada' and f0.arg2 > 1700000000 and f0.arg1 is not null)));
