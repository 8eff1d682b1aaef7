// html-validate's recommended rules, for the ten main pages
// (htmlvalidate_test.go). What is changed, and why:
module.exports = {
  extends: ["html-validate:recommended"],
  rules: {
    // The queue's "sign selected" checkboxes share one name on purpose:
    // the form sends every ticked proposal_id.
    "form-dup-name": ["error", { shared: ["radio", "checkbox", "button", "reset", "submit"] }],
  },
};
