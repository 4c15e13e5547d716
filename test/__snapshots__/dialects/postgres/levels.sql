-- authorize
select false as allowed;

-- actions
select cast(null as text) as actions where false;

-- list
t.id in (select t.id where false);
