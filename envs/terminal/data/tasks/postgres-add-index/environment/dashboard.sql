SELECT date_trunc('hour', ts) AS hour, count(*) AS n, round(avg(value)::numeric, 3) AS mean
FROM samples
WHERE host = 'web-07'
  AND ts >= '2024-03-15 00:00:00+00' AND ts < '2024-03-16 00:00:00+00'
GROUP BY 1
ORDER BY 1;
