// Reading game documents (Python dicts) with precise error messages: every failure is a
// ValueError naming the field and what was expected, never a crash.
#pragma once

#include <pybind11/pybind11.h>

#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "../common/text.h"  // quoted: a user's text in a message

namespace meeple::bindings {

namespace py = pybind11;

// Whether `value` is a bool, Python's or numpy's: numpy before 2.3 gives its bool an __index__
// (with only a DeprecationWarning), so an int check alone would take True as 1.
inline bool is_bool(const py::handle& value) {
  if (PyBool_Check(value.ptr())) return true;
  const char* type = Py_TYPE(value.ptr())->tp_name;
  return std::strcmp(type, "numpy.bool") == 0 || std::strcmp(type, "numpy.bool_") == 0;
}

// Whether `value` can be read as an int: has __index__ and is no bool.
inline bool is_int(const py::handle& value) { return !is_bool(value) && PyIndex_Check(value.ptr()); }

// Whether `value` is an int a document may hold: a Python int (not a bool) or a numpy integer.
// Only these: reading them runs no code of the caller's (an __index__ that changed the dict or
// list being read would pull it from under the reader).
inline bool is_document_int(const py::handle& value) {
  if (PyLong_Check(value.ptr())) return !PyBool_Check(value.ptr());
  return std::strncmp(Py_TYPE(value.ptr())->tp_name, "numpy.", 6) == 0 && is_int(value);
}

// `value` (is_int) as a long; false if it is none after all (a TypeError of its __index__, as a
// numpy array that is no integer scalar raises) or does not fit one. Another exception of its
// __index__ (a KeyboardInterrupt) goes on as it is.
inline bool long_of(const py::handle& value, long& out) {
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(value.ptr()));
  if (!index) {
    if (!PyErr_ExceptionMatches(PyExc_TypeError)) throw py::error_already_set();
    PyErr_Clear();
    return false;
  }
  int overflow = 0;
  out = PyLong_AsLongAndOverflow(index.ptr(), &overflow);
  if (out == -1 && PyErr_Occurred()) throw py::error_already_set();
  return overflow == 0;
}

[[noreturn]] inline void bad_field(const std::string& field, const std::string& problem) {
  throw py::value_error("state field '" + field + "': " + problem);
}

// The UTF-8 text of the str `s` (the caller checked the type) into `out`; false for a str that
// has none, such as a lone surrogate (JSON "\ud800" reads as one), which pybind11's cast would
// turn into a RuntimeError.
inline bool utf8_of(const py::handle& s, std::string& out) {
  Py_ssize_t size = 0;
  const char* data = PyUnicode_AsUTF8AndSize(s.ptr(), &size);
  if (!data) {
    PyErr_Clear();
    return false;
  }
  out.assign(data, static_cast<size_t>(size));
  return true;
}

// A state field's str as UTF-8 text (ValueError naming the field if it has none).
inline std::string read_text(const py::handle& s, const std::string& field) {
  std::string out;
  if (!utf8_of(s, out)) bad_field(field, "text that is not valid Unicode");
  return out;
}

// Rejects any key of `d` not in `allowed` and any missing key.
inline void require_keys(const py::dict& d, std::initializer_list<const char*> allowed,
                         const std::string& where = "state") {
  std::string names;
  for (const char* k : allowed) names += std::string(names.empty() ? "" : ", ") + k;
  for (auto item : d) {
    if (!py::isinstance<py::str>(item.first))
      throw py::value_error(where + " keys must be strings; expected: " + names);
    std::string key;
    if (!utf8_of(item.first, key))
      throw py::value_error(where + " has a key that is not valid Unicode; expected: " + names);
    bool known = false;
    for (const char* k : allowed) known = known || key == k;
    if (!known) throw py::value_error("unknown " + where + " field " + quoted(key) + "; expected: " + names);
  }
  for (const char* k : allowed)
    if (!d.contains(k)) throw py::value_error("missing " + where + " field '" + k + "'");
}

// An int field: a Python int or a numpy integer (as records take them), never a bool.
inline long read_int(const py::handle& value, const std::string& field, long lo, long hi) {
  if (!is_document_int(value)) bad_field(field, std::string("expected an int, got ") + Py_TYPE(value.ptr())->tp_name);
  long v = 0;
  if (!long_of(value, v) || v < lo || v > hi)
    bad_field(field, "expected an int in " + std::to_string(lo) + ".." + std::to_string(hi) +
                         ", got " + py::repr(value).cast<std::string>());
  return v;
}

// A bool field: Python's or numpy's bool.
inline bool read_bool(const py::handle& value, const std::string& field) {
  if (!is_bool(value)) bad_field(field, std::string("expected true/false, got ") + Py_TYPE(value.ptr())->tp_name);
  const int truth = PyObject_IsTrue(value.ptr());
  if (truth < 0) throw py::error_already_set();
  return truth == 1;
}

inline py::list read_list(const py::handle& value, const std::string& field, long length = -1) {
  if (!py::isinstance<py::list>(value) && !py::isinstance<py::tuple>(value))
    bad_field(field, std::string("expected a list, got ") + Py_TYPE(value.ptr())->tp_name);
  py::list list = py::reinterpret_borrow<py::object>(value).cast<py::list>();
  if (length >= 0 && static_cast<long>(list.size()) != length)
    bad_field(field, "expected a list of " + std::to_string(length) + " items, got " +
                         std::to_string(list.size()));
  return list;
}

inline py::dict read_dict(const py::handle& value, const std::string& field) {
  if (!py::isinstance<py::dict>(value))
    bad_field(field, std::string("expected an object, got ") + Py_TYPE(value.ptr())->tp_name);
  return py::reinterpret_borrow<py::dict>(value);
}

}  // namespace meeple::bindings
