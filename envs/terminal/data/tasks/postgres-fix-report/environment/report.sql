-- Revenue per country in 2024 (paid orders only).
SELECT c.country, SUM(oi.qty * oi.unit_price) AS revenue
FROM customers c
JOIN orders o ON o.customer_id = c.id
JOIN order_items oi ON oi.order_id = c.id
WHERE o.status = 'PAID'
  AND o.placed_at BETWEEN '2024-01-01' AND '2024-12-31'
GROUP BY c.country
ORDER BY revenue DESC;
