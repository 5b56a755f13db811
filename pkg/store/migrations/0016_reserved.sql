-- reserved (local only)
SELECT 1;
