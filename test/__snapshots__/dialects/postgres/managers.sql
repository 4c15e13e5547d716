-- authorize
with
  polar_c0(arg0, arg2) as not materialized (SELECT * FROM managers_b0)
 select exists (select 1 from polar_c0 as f0 where f0.arg0 = 10 and f0.arg2 = 1) as allowed;

-- actions
with
  polar_c0(arg0, arg2) as not materialized (SELECT * FROM managers_b0),
  polar_r0(s0) as (select cast(1 as integer))
 select distinct a.actions from (select cast('read' as text) as actions from polar_c0 as f0 where f0.arg0 = 10 and f0.arg2 = 1) as a;

-- list
t.id = any(array((with
  polar_c0(arg0, arg2) as not materialized (SELECT * FROM managers_b0)
 select f0.arg0 from polar_c0 as f0 where f0.arg2 = 1 and f0.arg0 is not null)));
