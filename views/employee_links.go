package views

import "strconv"

// employeeAuditTarget is the audit target of an employee, as the employee
// area writes it ("employee:<id>").
func employeeAuditTarget(id int64) string { return "employee:" + strconv.FormatInt(id, 10) }
