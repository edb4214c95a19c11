// The insert binder and the row reader of an attempt, made from
// store/attempt_fields.def.
#include "store/attempt.hpp"

#include "store/case_mix.hpp"

namespace rfdb::store {

namespace {

// The stored value of a member (the column's codec, by the member's type).
template <typename T> const T& stored(const T& value)
{
  return value;
}
std::optional<std::string> stored(const std::vector<domain::CaseShare>& cases)
{
  return case_mix_json(cases);
}

// Read column `col` into `out`, reusing its buffer.
void read_column(const Statement& s, int col, std::string& out)
{
  if (const auto v = s.get_opt_text_view(col)) {
    out.assign(v->data(), v->size());
  } else {
    out.clear();
  }
}
void read_column(const Statement& s, int col, std::optional<std::string>& out)
{
  if (const auto v = s.get_opt_text_view(col)) {
    if (!out) {
      out.emplace();
    }
    out->assign(v->data(), v->size());
  } else {
    out.reset();
  }
}
void read_column(const Statement& s, int col, std::optional<double>& out)
{
  out = s.get_opt_double(col);
}
void read_column(const Statement& s, int col, std::optional<std::int64_t>& out)
{
  out = s.get_opt_int(col);
}
void read_column(const Statement& s, int col, bool& out)
{
  out = s.get_opt_int(col).value_or(0) != 0;
}
void read_column(const Statement& s, int col, std::optional<bool>& out)
{
  const auto v = s.get_opt_int(col);
  out = v ? std::optional<bool>(*v != 0) : std::nullopt;
}
// NULL on all but multi-case measured predictions: no parse for those.
void read_column(const Statement& s, int col, std::vector<domain::CaseShare>& out)
{
  const auto v = s.get_opt_text_view(col);
  out = v && !v->empty() ? parse_case_mix(*v) : std::vector<domain::CaseShare>{};
}

} // namespace

void bind_attempt(Statement& s, const Attempt& a)
{
#define RFDB_ATTEMPT_COLUMN(member, type, init, readers) s.bind(":" #member, stored(a.member));
#define RFDB_ATTEMPT_PREDICTION(member, readers) s.bind(":pred_" #member, stored(a.prediction.member));
#include "store/attempt_fields.def"
#undef RFDB_ATTEMPT_COLUMN
#undef RFDB_ATTEMPT_PREDICTION
}

void read_attempt(const Statement& s, AttemptReader reader, Attempt& a, int first)
{
  using namespace detail;
  const auto wanted = static_cast<unsigned>(reader);
  int col = first;
#define RFDB_ATTEMPT_COLUMN(member, type, init, readers)                                                     \
  if (((readers)&wanted) != 0) {                                                                             \
    read_column(s, col++, a.member);                                                                         \
  }
#define RFDB_ATTEMPT_PREDICTION(member, readers)                                                             \
  if (((readers)&wanted) != 0) {                                                                             \
    read_column(s, col++, a.prediction.member);                                                              \
  }
#include "store/attempt_fields.def"
#undef RFDB_ATTEMPT_COLUMN
#undef RFDB_ATTEMPT_PREDICTION
}

} // namespace rfdb::store
