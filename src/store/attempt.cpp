// The insert binder and the row reader of an attempt, made from
// store/attempt_fields.def.
#include "store/attempt.hpp"

#include "store/case_mix.hpp"

#include <fmt/format.h>

namespace rfdb::store {

namespace {

// The stored value of a member (the column's codec, by the member's type).
template <typename T>
requires(!domain::Vocabulary<T>) const T& stored(const T& value)
{
  return value;
}
std::optional<std::string> stored(const std::vector<domain::CaseShare>& cases)
{
  return case_mix_json(cases);
}
template <domain::Vocabulary E> std::string_view stored(E value)
{
  return domain::to_string(value);
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

// Read a member: a vocab<E> column parses its text (an error outside E),
// every other type cannot fail.
template <typename T> Result<void> read_member(const Statement& s, int col, std::string_view column, T& out)
{
  if constexpr (domain::Vocabulary<T>) {
    const auto text = s.get_opt_text_view(col).value_or(std::string_view{});
    auto value = parse_attempt_vocab<T>(column, text);
    if (!value) {
      return fail(std::move(value).error());
    }
    out = *value;
  } else {
    read_column(s, col, out);
  }
  return {};
}

} // namespace

Error bad_attempt_vocab(std::string_view column, std::string_view text)
{
  return make_error(ErrorCode::db,
                    fmt::format("attempts.{} holds '{}', not one of its values", column, text));
}

void bind_attempt(Statement& s, const Attempt& a)
{
#define RFDB_ATTEMPT_COLUMN(member, type, init, readers) s.bind(":" #member, stored(a.member));
#define RFDB_ATTEMPT_PREDICTION(member, readers) s.bind(":pred_" #member, stored(a.prediction.member));
#include "store/attempt_fields.def"
#undef RFDB_ATTEMPT_COLUMN
#undef RFDB_ATTEMPT_PREDICTION
}

Result<void> read_attempt(const Statement& s, AttemptReader reader, Attempt& a, int first)
{
  using namespace detail;
  const auto wanted = static_cast<unsigned>(reader);
  int col = first;
#define RFDB_ATTEMPT_COLUMN(member, type, init, readers)                                                     \
  if (((readers)&wanted) != 0) {                                                                             \
    RFDB_TRY(read_member(s, col++, #member, a.member));                                                      \
  }
#define RFDB_ATTEMPT_PREDICTION(member, readers)                                                             \
  if (((readers)&wanted) != 0) {                                                                             \
    RFDB_TRY(read_member(s, col++, "pred_" #member, a.prediction.member));                                   \
  }
#include "store/attempt_fields.def"
#undef RFDB_ATTEMPT_COLUMN
#undef RFDB_ATTEMPT_PREDICTION
  return {};
}

} // namespace rfdb::store
