package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	my "github.com/go-sql-driver/mysql"

	"github.com/cairn-bench/cairn/internal/target"
)

// varName is a system variable's name as the servers spell them: it reaches SET GLOBAL as an
// identifier only once the server has listed it.
var varName = regexp.MustCompile(`^[a-z0-9_]+$`)

// DescribeSetting implements target.Configurer: MariaDB describes its variables in
// information_schema.SYSTEM_VARIABLES (type, range, allowed values, whether read-only); MySQL only
// in performance_schema.global_variables and variables_info (value and range).
func (t *mysqlTarget) DescribeSetting(ctx context.Context, c target.Conn, name string) (target.Setting, error) {
	s := target.Setting{Name: strings.ToLower(name)}
	var err error
	if t.kind == "mariadb" {
		var typ, scope, readOnly string
		var min, max, enum sql.NullString
		err = c.QueryRow(ctx, `SELECT VARIABLE_NAME, COALESCE(GLOBAL_VALUE, ''), VARIABLE_TYPE, VARIABLE_SCOPE, READ_ONLY,
			NUMERIC_MIN_VALUE, NUMERIC_MAX_VALUE, ENUM_VALUE_LIST FROM information_schema.SYSTEM_VARIABLES WHERE VARIABLE_NAME = ?`,
			s.Name).Scan(&s.Name, &s.Value, &typ, &scope, &readOnly, &min, &max, &enum)
		if err == nil {
			s.Name = strings.ToLower(s.Name)
			s.Type = mariaType(typ)
			s.Min, s.Max = min.String, max.String
			if enum.Valid && enum.String != "" {
				s.Enum = strings.Split(enum.String, ",")
			}
			// A read-only variable changes only in the server's configuration file, with a restart;
			// MariaDB has no statement that writes that file.
			s.Fixed = readOnly == "YES" || scope == "SESSION ONLY"
		}
	} else {
		var min, max sql.NullString
		err = c.QueryRow(ctx, `SELECT g.VARIABLE_NAME, g.VARIABLE_VALUE, i.MIN_VALUE, i.MAX_VALUE
			FROM performance_schema.global_variables g LEFT JOIN performance_schema.variables_info i USING (VARIABLE_NAME)
			WHERE g.VARIABLE_NAME = ?`, s.Name).Scan(&s.Name, &s.Value, &min, &max)
		if err == nil {
			s.Type = "string"
			if min.String != "0" || max.String != "0" {
				s.Type, s.Min, s.Max = "integer", min.String, max.String
			}
		}
	}
	if errors.Is(err, sql.ErrNoRows) || err != nil && strings.Contains(err.Error(), "no rows") {
		return s, &target.UnknownSettingError{Name: name, Server: t.Name(), Version: t.version, Near: t.near(ctx, c, s.Name)}
	}
	if err != nil {
		return s, err
	}
	if !varName.MatchString(s.Name) {
		return s, fmt.Errorf("%s names a variable %q that cairn cannot set", t.Name(), s.Name)
	}
	return s, nil
}

// mariaType maps SYSTEM_VARIABLES.VARIABLE_TYPE to target.Setting's types.
func mariaType(t string) string {
	switch {
	case t == "BOOLEAN":
		return "bool"
	case t == "ENUMERATION":
		return "enum"
	case strings.Contains(t, "INT"):
		return "integer"
	case t == "DOUBLE":
		return "real"
	}
	return "string"
}

func (t *mysqlTarget) near(ctx context.Context, c target.Conn, name string) []string {
	rows, err := c.Query(ctx, "SHOW GLOBAL VARIABLES")
	if err != nil {
		return nil
	}
	defer rows.Close()
	var all []string
	for rows.Next() {
		var n, v string
		if rows.Scan(&n, &v) == nil {
			all = append(all, n)
		}
	}
	return target.Near(name, all)
}

// SetSetting implements target.Configurer with SET GLOBAL, the value bound as a parameter of its
// type (a number to an integer variable: MySQL refuses a string there), and reads it back: MySQL
// clamps an out-of-range number with a warning, which the read-back shows.
func (t *mysqlTarget) SetSetting(ctx context.Context, c target.Conn, s target.Setting, value string) (string, error) {
	if s.Fixed {
		return "", &target.SettingValueError{Name: s.Name, Value: value, Why: "read-only: it changes only in the server's configuration file, with a restart"}
	}
	arg, err := typed(s, value)
	if err != nil {
		return "", &target.SettingValueError{Name: s.Name, Value: value, Why: err.Error()}
	}
	if _, err := c.Exec(ctx, "SET GLOBAL "+s.Name+" = ?", arg); err != nil {
		var me *my.MySQLError
		if errors.As(err, &me) && (me.Number == 1231 || me.Number == 1232 || me.Number == 1238) {
			return "", &target.SettingValueError{Name: s.Name, Value: value, Why: me.Message}
		}
		return "", err
	}
	now, err := t.DescribeSetting(ctx, c, s.Name)
	return now.Value, err
}

// RestoreSetting implements target.Configurer: SET GLOBAL of the value found.
func (t *mysqlTarget) RestoreSetting(ctx context.Context, c target.Conn, s target.Setting) error {
	if s.Fixed {
		return nil
	}
	arg, err := typed(s, s.Value)
	if err != nil {
		return err
	}
	_, err = c.Exec(ctx, "SET GLOBAL "+s.Name+" = ?", arg)
	return err
}

// typed converts a value to the Go type the variable takes as a bound parameter.
func typed(s target.Setting, value string) (any, error) {
	switch s.Type {
	case "integer":
		if n, err := strconv.ParseInt(value, 10, 64); err == nil {
			return n, nil
		}
		if n, err := strconv.ParseUint(value, 10, 64); err == nil {
			return n, nil
		}
		return nil, fmt.Errorf("not a whole number")
	case "real":
		f, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return nil, fmt.Errorf("not a number")
		}
		return f, nil
	case "bool":
		switch strings.ToUpper(value) {
		case "ON", "TRUE", "1", "YES":
			return "ON", nil
		case "OFF", "FALSE", "0", "NO":
			return "OFF", nil
		}
		return nil, fmt.Errorf("not a boolean (use ON or OFF)")
	}
	return value, nil
}

// StudyLockName is the named lock (GET_LOCK) a study holds on the server for its whole life.
const StudyLockName = "cairn.study"

// LockStudies implements target.StudyLocker with GET_LOCK, which the session holds until it
// closes; a user lock's name is the server's, not one database's. MySQL has no name a session can
// give itself for others to read (who is unused), so the holder is described by its connection:
// its id and its client's address.
func (t *mysqlTarget) LockStudies(ctx context.Context, _ string) (*target.StudyLock, string, error) {
	c, err := t.Conn(ctx)
	if err != nil {
		return nil, "", err
	}
	var got sql.NullInt64
	if err := c.QueryRow(ctx, "SELECT GET_LOCK(?, 0)", StudyLockName).Scan(&got); err != nil {
		c.Close()
		return nil, "", fmt.Errorf("taking the study lock: %w", err)
	}
	if got.Valid && got.Int64 == 1 {
		return target.HeldBy(c, "", "DO RELEASE_LOCK(?)", StudyLockName), "", nil
	}
	defer c.Close()
	var id int64
	var host string
	err = c.QueryRow(ctx, `SELECT ID, HOST FROM information_schema.PROCESSLIST WHERE ID = IS_USED_LOCK(?)`, StudyLockName).Scan(&id, &host)
	if err != nil {
		return nil, "a session that has just ended: try again", nil
	}
	return nil, fmt.Sprintf("a cairn study's session: connection %d from %s", id, host), nil
}
