package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
)

func zzReset(db *database) {
	c, err := pgx.Connect(context.Background(), db.admin)
	if err != nil {
		return
	}
	defer c.Close(context.Background())
	c.Exec(context.Background(), "select pg_stat_statements_reset()")
	go func() {
		time.Sleep(1500 * time.Millisecond)
		c, err := pgx.Connect(context.Background(), db.admin)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		rows, _ := c.Query(context.Background(), `select calls, plans, round(total_plan_time::numeric,1)::text, round(total_exec_time::numeric,1)::text, left(regexp_replace(query,'\s+',' ','g'),110) from pg_stat_statements order by total_plan_time+total_exec_time desc limit 30`)
		f, _ := os.Create("/tmp/pgss.txt")
		defer f.Close()
		for rows.Next() {
			var calls, plans int64
			var pt, et, q string
			rows.Scan(&calls, &plans, &pt, &et, &q)
			fmt.Fprintf(f, "%5d %5d %8s %8s %s\n", calls, plans, pt, et, q)
		}
	}()
}
