-- authorize
with
  polar_c0(arg0, arg2) as not materialized (SELECT * FROM attributes_b1),
  polar_c1(arg0, arg1, arg2) as not materialized (SELECT * FROM attributes_b0),
  polar_c2(arg0) as not materialized (SELECT * FROM attributes_b2),
  polar_c3(arg0, arg1) as not materialized (SELECT * FROM attributes_b4),
  polar_c4(arg0, arg1) as not materialized (SELECT * FROM attributes_b5)
 select exists (select 1 from polar_c0 as f0, polar_c1 as f1 where not exists (select 1 from polar_c2 as f2 where f2.arg0 = '00000000-0000-0000-0000-000000000001') and f0.arg0 = '00000000-0000-0000-0000-000000000001' and f1.arg0 = 'ada' and f1.arg1 = 'member' and f1.arg2 = f0.arg2) or exists (select 1 from polar_c3 as f0 where f0.arg0 = '00000000-0000-0000-0000-000000000001' and f0.arg1 = true) or exists (select 1 from polar_c2 as f0, polar_c4 as f1 where f0.arg0 = '00000000-0000-0000-0000-000000000001' and f1.arg0 = 'ada' and f1.arg1 >= 3) as allowed;

-- actions
with
  polar_c0(arg0, arg2) as not materialized (SELECT * FROM attributes_b1),
  polar_c1(arg0, arg1, arg2) as not materialized (SELECT * FROM attributes_b0),
  polar_c2(arg0) as not materialized (SELECT * FROM attributes_b2),
  polar_c3(arg0, arg1) as not materialized (SELECT * FROM attributes_b4),
  polar_c4(arg0, arg1) as not materialized (SELECT * FROM attributes_b3),
  polar_c5(arg0, arg1) as not materialized (SELECT * FROM attributes_b5)
 select distinct a.actions from (select cast('view' as text) as actions from polar_c0 as f0, polar_c1 as f1 where not exists (select 1 from polar_c2 as f2 where f2.arg0 = '00000000-0000-0000-0000-000000000001') and f0.arg0 = '00000000-0000-0000-0000-000000000001' and f1.arg0 = 'ada' and f1.arg1 = 'member' and f1.arg2 = f0.arg2 union all select cast('view' as text) as actions from polar_c3 as f0 where f0.arg0 = '00000000-0000-0000-0000-000000000001' and f0.arg1 = true union all select cast('edit' as text) as actions from polar_c0 as f0, polar_c1 as f1 where not exists (select 1 from polar_c4 as f2 where f2.arg0 = '00000000-0000-0000-0000-000000000001' and f2.arg1 = 'closed') and not exists (select 1 from polar_c2 as f3 where f3.arg0 = '00000000-0000-0000-0000-000000000001') and f0.arg0 = '00000000-0000-0000-0000-000000000001' and f1.arg0 = 'ada' and f1.arg1 = 'member' and f1.arg2 = f0.arg2 union all select cast('edit' as text) as actions from polar_c3 as f0 where not exists (select 1 from polar_c4 as f1 where f1.arg0 = '00000000-0000-0000-0000-000000000001' and f1.arg1 = 'closed') and f0.arg0 = '00000000-0000-0000-0000-000000000001' and f0.arg1 = true union all select cast('edit' as text) as actions from polar_c2 as f0, polar_c5 as f1 where not exists (select 1 from polar_c4 as f2 where f2.arg0 = '00000000-0000-0000-0000-000000000001' and f2.arg1 = 'closed') and f0.arg0 = '00000000-0000-0000-0000-000000000001' and f1.arg0 = 'ada' and f1.arg1 >= 3 union all select cast('view' as text) as actions from polar_c2 as f0, polar_c5 as f1 where f0.arg0 = '00000000-0000-0000-0000-000000000001' and f1.arg0 = 'ada' and f1.arg1 >= 3) as a;

-- list
t.id = any(array((with
  polar_c0(arg0, arg2) as not materialized (SELECT * FROM attributes_b1),
  polar_c1(arg0, arg1, arg2) as not materialized (SELECT * FROM attributes_b0),
  polar_c2(arg0) as not materialized (SELECT * FROM attributes_b2),
  polar_c3(arg0, arg1) as not materialized (SELECT * FROM attributes_b4),
  polar_c4(arg0, arg1) as not materialized (SELECT * FROM attributes_b5)
 select f0.arg0 from polar_c0 as f0, polar_c1 as f1 where not exists (select 1 from polar_c2 as f2 where f2.arg0 = f0.arg0) and f1.arg0 = 'ada' and f1.arg1 = 'member' and f1.arg2 = f0.arg2 and f0.arg0 is not null union all select f0.arg0 from polar_c3 as f0 where f0.arg1 = true and f0.arg0 is not null union all select f0.arg0 from polar_c2 as f0, polar_c4 as f1 where f1.arg0 = 'ada' and f1.arg1 >= 3 and f0.arg0 is not null)));
