-- authorize
with
  polar_c0(arg0, arg2) as (SELECT * FROM managers_b0)
 select exists (select 1 from polar_c0 as f0 where f0.arg0 = 10 and f0.arg2 = 1) as allowed;

-- actions
with
  polar_c0(arg0, arg2) as (SELECT * FROM managers_b0),
  polar_r0(s0) as (select cast(1 as signed))
 select convert(min(d.actions) using utf8mb4) as actions from (select 'read' as actions from polar_c0 as f0 where f0.arg0 = 10 and f0.arg2 = 1) as d group by cast(d.actions as binary);

-- list
t.id in (with
  polar_c0(arg0, arg2) as (SELECT * FROM managers_b0)
 select f0.arg0 from polar_c0 as f0 where f0.arg2 = 1 and f0.arg0 is not null);
