-- authorize
with recursive
  polar_c0(arg0, arg2) as (SELECT * FROM mutualself_b0),
  polar_c1(arg0, arg1, arg2) as (SELECT * FROM mutualself_b1),
  polar_r0(s0, s2) as (select cast(0 as signed), cast(1 as signed) union select cast(case step.t when 1 then step.o1_1 when 2 then step.o2_1 end as signed), cast(case step.t when 1 then step.o1_2 when 2 then step.o2_2 end as signed) from polar_r0 as rec, (select 1 as t, q0.arg0 as j1_0, 0 as o1_1, q0.arg2 as o1_2, null as j2_0, null as o2_1, null as o2_2 from polar_c0 as q0 where q0.arg0 is not null and q0.arg2 is not null union all select 2 as t, null as j1_0, null as o1_1, null as o1_2, q0.arg0 as j2_0, 1 as o2_1, q0.arg2 as o2_2 from polar_c0 as q0 where q0.arg0 is not null and q0.arg2 is not null) as step where (step.t = 1 and rec.s0 in (0, 1) and step.j1_0 = rec.s2) or (step.t = 2 and rec.s0 in (0, 1) and step.j2_0 = rec.s2))
 select exists (select 1 from polar_r0 as f0, polar_c1 as f1 where f0.s0 in (0, 1) and f1.arg0 = cast('ada' as binary) and f1.arg1 = cast('reader' as binary) and f1.arg2 = f0.s2) as allowed;

-- actions: refused
-- policy.polar:8:3: the mysql dialect cannot run this question: it reads recursive relations 8 times (3 of them the recursion of `has_role`), and MariaDB plans more than 6 such reads in exponential time and memory (docs/dialects.md)

-- list
t.id in (with recursive
  polar_c0(arg0, arg1, arg2) as (SELECT * FROM mutualself_b1),
  polar_c1(arg0, arg2) as (SELECT * FROM mutualself_b0),
  polar_r0(arg0, arg2) as (select cast(0 as signed), cast(q0.arg2 as signed) from polar_c0 as q0 where q0.arg0 = cast('ada' as binary) and q0.arg1 = cast('reader' as binary) and q0.arg2 is not null union select cast(1 as signed), cast(q0.arg2 as signed) from polar_c0 as q0 where q0.arg0 = cast('ada' as binary) and q0.arg1 = cast('reader' as binary) and q0.arg2 is not null union select cast(case step.t when 1 then step.o1_1 when 2 then step.o2_1 end as signed), cast(case step.t when 1 then step.o1_2 when 2 then step.o2_2 end as signed) from polar_r0 as rec, (select 1 as t, q0.arg2 as j1_0, 0 as o1_1, q0.arg0 as o1_2, null as j2_0, null as o2_1, null as o2_2 from polar_c1 as q0 where q0.arg0 is not null and q0.arg2 is not null union all select 2 as t, null as j1_0, null as o1_1, null as o1_2, q0.arg2 as j2_0, 1 as o2_1, q0.arg0 as o2_2 from polar_c1 as q0 where q0.arg0 is not null and q0.arg2 is not null) as step where (step.t = 1 and rec.arg0 in (0, 1) and rec.arg2 = step.j1_0) or (step.t = 2 and rec.arg0 in (0, 1) and rec.arg2 = step.j2_0))
 select f0.arg2 from polar_r0 as f0 where f0.arg0 = 0);
