-- placeholder for local tests only
SELECT 1;
