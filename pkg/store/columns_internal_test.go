package store

import (
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm/schema"
)

// The statements the store writes by hand name a row's columns in a list
// of their own: a field added to a row but not to its list, or listed out
// of order, fails here rather than scanning into the wrong field.
func TestColumnListsFollowTheirRows(t *testing.T) {
	scanned := []struct {
		row     interface{ scanTargets() []any }
		columns string
	}{
		{&sandboxRow{}, sandboxColumns},
		{&instanceRow{}, instanceColumns},
		{&agentRow{}, agentColumns},
		{&quotaRow{}, quotaColumns},
	}
	for _, c := range scanned {
		fields := reflect.ValueOf(c.row).Elem()
		checkColumns(t, c.row, c.columns)
		for i, target := range c.row.scanTargets() {
			if want := fields.Field(i).Addr().Interface(); target != want {
				t.Errorf("%T: scan target %d is not its field %s", c.row, i, fields.Type().Field(i).Name)
			}
		}
	}

	inserted := []struct {
		row     interface{ values() []any } // a pointer to the row
		columns string
	}{
		{&runRow{}, runColumns},
		{&auditRow{}, auditColumns},
	}
	for _, c := range inserted {
		checkColumns(t, c.row, c.columns)
		fields := reflect.ValueOf(c.row).Elem()
		for i := range fields.NumField() {
			// With only field i set, only value i may be set.
			fields.Set(reflect.Zero(fields.Type()))
			setNonZero(fields.Field(i))
			for j, v := range c.row.values() {
				if set := !isZero(v); set != (i == j) {
					t.Errorf("%T: with only %s set, value %d is set: %v", c.row, fields.Type().Field(i).Name, j, set)
				}
			}
		}
	}
}

// checkColumns compares columns with the row's columns as GORM maps them.
func checkColumns(t *testing.T, row any, columns string) {
	t.Helper()
	s, err := schema.Parse(row, &sync.Map{}, schema.NamingStrategy{})
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Join(s.DBNames, ", "); columns != want {
		t.Errorf("%T's columns are listed as\n  %s\nbut are\n  %s", row, columns, want)
	}
}

func setNonZero(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		setNonZero(v.Elem())
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int:
		v.SetInt(1)
	case reflect.Struct:
		v.Set(reflect.ValueOf(time.Unix(1, 0))) // the rows' only structs are times
	default:
		panic("setNonZero: a field of kind " + v.Kind().String())
	}
}

func isZero(v any) bool {
	rv := reflect.ValueOf(v)
	return !rv.IsValid() || rv.IsZero()
}
