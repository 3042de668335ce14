#include "RunQuery.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QRegularExpression>

#include <array>
#include <cmath>
#include <limits>
#include <vector>

namespace sb {

using namespace Qt::StringLiterals;

namespace {

// ---- What the text says: tokens ----

struct Token {
    enum class Kind { End, Word, Text, Name, Literal, Operator, Open, Close, Comma };
    Kind kind = Kind::End;
    QString text;
    qsizetype column = 0; // from 1
};

bool isWordStart(QChar c) {
    return c.isLetter() || c == u'_';
}
bool isWordChar(QChar c) {
    return c.isLetterOrNumber() || QStringView(u"_./:@#-%").contains(c);
}
bool isLiteralChar(QChar c) {
    return c.isLetterOrNumber() || QStringView(u"._:+-").contains(c);
}
bool isKeyword(const QString &word, QStringView keyword) {
    return word.compare(keyword, Qt::CaseInsensitive) == 0;
}

Error problemAt(qsizetype column, const QString &message) {
    return fail(RunQuery::tr("column %1: %2").arg(column).arg(message), ErrorCode::InvalidInput);
}

// Splits the query into tokens; a sign before a digit starts a number where a value may stand.
Result<std::vector<Token>> tokenize(const QString &text) {
    std::vector<Token> tokens;
    qsizetype i = 0;
    const qsizetype n = text.size();
    auto valueMayFollow = [&tokens] {
        if (tokens.empty())
            return false;
        const Token::Kind last = tokens.back().kind;
        return last == Token::Kind::Operator || last == Token::Kind::Open ||
               last == Token::Kind::Comma;
    };
    while (i < n) {
        const QChar c = text[i];
        const qsizetype column = i + 1;
        if (c.isSpace()) {
            ++i;
            continue;
        }
        if (c == u'(' || c == u')' || c == u',') {
            tokens.push_back({c == u'('   ? Token::Kind::Open
                              : c == u')' ? Token::Kind::Close
                                          : Token::Kind::Comma,
                              QString(c), column});
            ++i;
            continue;
        }
        if (c == u'"' || c == u'\'' || c == u'`') {
            QString quoted;
            qsizetype j = i + 1;
            for (; j < n && text[j] != c; ++j) {
                // \" and \\ are escapes; any other backslash stays (a pattern's \d, \.).
                if (text[j] == u'\\' && j + 1 < n && (text[j + 1] == c || text[j + 1] == u'\\'))
                    ++j;
                quoted += text[j];
            }
            if (j >= n)
                return problemAt(column, RunQuery::tr("%1 is never closed").arg(c));
            tokens.push_back({c == u'`' ? Token::Kind::Name : Token::Kind::Text, quoted, column});
            i = j + 1;
            continue;
        }
        const bool signedNumber = (c == u'-' || c == u'+') && i + 1 < n && valueMayFollow() &&
                                  (text[i + 1].isDigit() || text[i + 1] == u'.' ||
                                   text[i + 1].toLower() == u'i' || text[i + 1].toLower() == u'n');
        if (c.isDigit() || (c == u'.' && i + 1 < n && text[i + 1].isDigit()) || signedNumber) {
            qsizetype j = i + 1;
            while (j < n && isLiteralChar(text[j]))
                ++j;
            tokens.push_back({Token::Kind::Literal, text.mid(i, j - i), column});
            i = j;
            continue;
        }
        if (isWordStart(c)) {
            qsizetype j = i + 1;
            while (j < n && isWordChar(text[j]))
                ++j;
            tokens.push_back({Token::Kind::Word, text.mid(i, j - i), column});
            i = j;
            continue;
        }
        static constexpr std::array kOperators{u"==", u"!=", u"<>", u"<=", u">=", u"!~", u"&&",
                                               u"||", u"=",  u"<",  u">",  u"~",  u"!"};
        bool matched = false;
        for (const char16_t *op : kOperators) {
            const QStringView view(op);
            if (QStringView(text).sliced(i).startsWith(view)) {
                tokens.push_back({Token::Kind::Operator, view.toString(), column});
                i += view.size();
                matched = true;
                break;
            }
        }
        if (!matched)
            return problemAt(column, RunQuery::tr("unexpected character “%1”").arg(c));
    }
    tokens.push_back({Token::Kind::End, {}, n + 1});
    return tokens;
}

// ---- What the tree holds ----

// A value a query compares with.
struct Literal {
    enum class Kind { Number, Text, Bool, Null, Nan, Now, Ago };
    Kind kind = Kind::Text;
    double number = 0; // a Number, or an Ago's seconds
    QString text;      // a Text
    bool boolean = false;
    bool numeric = false; // a Text that reads as a number (then `number` holds it)
    QString raw;          // as typed (a Text's without its quotes): a pattern, a part to find
};

// A field of a run.
struct Field {
    enum class Kind {
        Name,
        Status,
        Host,
        Sweep,
        Note,
        Tags,
        Start,
        End,
        LastSeen,
        Duration,
        Archived,
        Config,
        Code,
        Environment,
        ForkedFrom,
        Metric
    };
    enum class Of { Last, Min, Max, Best, Count, Step }; // of a metric
    Kind kind = Kind::Metric;
    QString key; // of a JSON object (dotted), or the metric's name
    Of of = Of::Last;
};

enum class Op {
    Equal,
    NotEqual,
    Less,
    LessEqual,
    Greater,
    GreaterEqual,
    Match,
    NotMatch,
    Has,
    NotHas,
    In,
    NotIn
};

} // namespace

struct RunQuery::Node {
    enum class Kind { And, Or, Not, Compare };
    Kind kind = Kind::Compare;
    std::vector<std::shared_ptr<const Node>> children;
    Field field;
    Op op = Op::Equal;
    std::vector<Literal> values; // one, or an `in` list's
    QRegularExpression pattern;  // of ~ and !~
};

namespace {

using Node = RunQuery::Node;

// ---- Reading the tokens ----

const QList<std::pair<QString, Field::Kind>> &fixedFields() {
    static const QList<std::pair<QString, Field::Kind>> fields{
        {u"name"_s, Field::Kind::Name},         {u"run"_s, Field::Kind::Name},
        {u"status"_s, Field::Kind::Status},     {u"host"_s, Field::Kind::Host},
        {u"sweep"_s, Field::Kind::Sweep},       {u"note"_s, Field::Kind::Note},
        {u"tags"_s, Field::Kind::Tags},         {u"start"_s, Field::Kind::Start},
        {u"end"_s, Field::Kind::End},           {u"last_seen"_s, Field::Kind::LastSeen},
        {u"duration"_s, Field::Kind::Duration}, {u"archived"_s, Field::Kind::Archived}};
    return fields;
}
const QList<std::pair<QString, Field::Kind>> &objectFields() {
    static const QList<std::pair<QString, Field::Kind>> objects{
        {u"config."_s, Field::Kind::Config},
        {u"code."_s, Field::Kind::Code},
        {u"environment."_s, Field::Kind::Environment},
        {u"forked_from."_s, Field::Kind::ForkedFrom}};
    return objects;
}
const QList<std::pair<QString, Field::Of>> &metricFunctions() {
    static const QList<std::pair<QString, Field::Of>> functions{
        {u"last"_s, Field::Of::Last}, {u"min"_s, Field::Of::Min},     {u"max"_s, Field::Of::Max},
        {u"best"_s, Field::Of::Best}, {u"count"_s, Field::Of::Count}, {u"step"_s, Field::Of::Step}};
    return functions;
}
const QStringList &keywords() {
    static const QStringList words{u"and"_s, u"or"_s,   u"not"_s,   u"has"_s,  u"in"_s,  u"ago"_s,
                                   u"now"_s, u"true"_s, u"false"_s, u"null"_s, u"nan"_s, u"inf"_s};
    return words;
}
bool isAnyKeyword(const QString &word) {
    return std::any_of(keywords().begin(), keywords().end(),
                       [&word](const QString &keyword) { return isKeyword(word, keyword); });
}

class Parser {
public:
    explicit Parser(std::vector<Token> tokens)
        : m_tokens(std::move(tokens)) {}

    Result<std::shared_ptr<const Node>> parseWhole() {
        auto root = parseOr();
        if (!root)
            return root;
        if (peek().kind != Token::Kind::End)
            return problemAt(
                peek().column,
                RunQuery::tr("expected “and”, “or” or the end, found “%1”").arg(peek().text));
        return root;
    }

private:
    const Token &peek(qsizetype ahead = 0) const {
        return m_tokens[std::min<std::size_t>(m_at + std::size_t(ahead), m_tokens.size() - 1)];
    }
    const Token &take() {
        const Token &token = peek();
        if (m_at + 1 < m_tokens.size())
            ++m_at;
        return token;
    }
    bool isWord(const Token &token, QStringView word) const {
        return token.kind == Token::Kind::Word && isKeyword(token.text, word);
    }
    bool isOperator(const Token &token, QStringView op) const {
        return token.kind == Token::Kind::Operator && token.text == op;
    }

    using Parsed = Result<std::shared_ptr<const Node>>;

    Parsed joined(Node::Kind kind, QStringView word, QStringView symbol, Parsed (Parser::*next)()) {
        auto left = (this->*next)();
        if (!left)
            return left;
        if (!isWord(peek(), word) && !isOperator(peek(), symbol))
            return left;
        auto node = std::make_shared<Node>();
        node->kind = kind;
        node->children.push_back(*left);
        while (isWord(peek(), word) || isOperator(peek(), symbol)) {
            take();
            auto right = (this->*next)();
            if (!right)
                return right;
            node->children.push_back(*right);
        }
        return std::shared_ptr<const Node>(node);
    }
    Parsed parseOr() { return joined(Node::Kind::Or, u"or", u"||", &Parser::parseAnd); }
    Parsed parseAnd() { return joined(Node::Kind::And, u"and", u"&&", &Parser::parseNot); }

    Parsed parseNot() {
        if (++m_depth > RunQuery::kDeepestNesting)
            return problemAt(peek().column,
                             RunQuery::tr("nested deeper than %1").arg(RunQuery::kDeepestNesting));
        Parsed parsed = [this]() -> Parsed {
            if (isWord(peek(), u"not") || isOperator(peek(), u"!")) {
                take();
                auto inner = parseNot();
                if (!inner)
                    return inner;
                auto node = std::make_shared<Node>();
                node->kind = Node::Kind::Not;
                node->children.push_back(*inner);
                return std::shared_ptr<const Node>(node);
            }
            if (peek().kind == Token::Kind::Open) {
                take();
                auto inner = parseOr();
                if (!inner)
                    return inner;
                if (peek().kind != Token::Kind::Close)
                    return problemAt(peek().column,
                                     RunQuery::tr("expected “)”, found %1").arg(found(peek())));
                take();
                return inner;
            }
            return parseComparison();
        }();
        --m_depth;
        return parsed;
    }

    static QString found(const Token &token) {
        return token.kind == Token::Kind::End ? RunQuery::tr("the end") : u"“%1”"_s.arg(token.text);
    }

    Result<Field> parseField() {
        const Token &token = take();
        Field field;
        if (token.kind == Token::Kind::Name) {
            field.key = token.text;
            return field;
        }
        if (token.kind != Token::Kind::Word || isAnyKeyword(token.text))
            return problemAt(token.column,
                             RunQuery::tr("expected a field (a metric, config.KEY, status, tags…), "
                                          "found %1")
                                 .arg(found(token)));
        if (peek().kind == Token::Kind::Open) {
            for (const auto &[name, of] : metricFunctions()) {
                if (!isKeyword(token.text, name))
                    continue;
                take();
                const Token &metric = take();
                if (metric.kind != Token::Kind::Word && metric.kind != Token::Kind::Name &&
                    metric.kind != Token::Kind::Text)
                    return problemAt(
                        metric.column,
                        RunQuery::tr("expected a metric's name, found %1").arg(found(metric)));
                if (peek().kind != Token::Kind::Close)
                    return problemAt(peek().column,
                                     RunQuery::tr("expected “)”, found %1").arg(found(peek())));
                take();
                field.key = metric.text;
                field.of = of;
                return field;
            }
            return problemAt(token.column,
                             RunQuery::tr("“%1” is not a function: last, min, max, best, count or "
                                          "step of a metric")
                                 .arg(token.text));
        }
        QString word = token.text;
        if (word.startsWith(u"info."_s, Qt::CaseInsensitive))
            word = word.mid(5);
        for (const auto &[name, kind] : fixedFields()) {
            if (isKeyword(word, name)) {
                field.kind = kind;
                return field;
            }
        }
        for (const auto &[prefix, kind] : objectFields()) {
            if (word.startsWith(prefix, Qt::CaseInsensitive)) {
                field.kind = kind;
                field.key = word.mid(prefix.size());
                if (field.key.isEmpty())
                    return problemAt(token.column,
                                     RunQuery::tr("“%1” names no key: %1KEY").arg(prefix));
                return field;
            }
        }
        field.key = token.text;
        return field;
    }

    Result<Op> parseOperator(const Field &field, qsizetype fieldColumn) {
        const Token &token = take();
        if (token.kind == Token::Kind::Operator) {
            static const QList<std::pair<QString, Op>> symbols{
                {u"="_s, Op::Equal},     {u"=="_s, Op::Equal},        {u"!="_s, Op::NotEqual},
                {u"<>"_s, Op::NotEqual}, {u"<"_s, Op::Less},          {u"<="_s, Op::LessEqual},
                {u">"_s, Op::Greater},   {u">="_s, Op::GreaterEqual}, {u"~"_s, Op::Match},
                {u"!~"_s, Op::NotMatch}};
            for (const auto &[symbol, op] : symbols)
                if (token.text == symbol)
                    return op;
        }
        if (isWord(token, u"has"))
            return Op::Has;
        if (isWord(token, u"in"))
            return Op::In;
        if (isWord(token, u"not") && (isWord(peek(), u"has") || isWord(peek(), u"in")))
            return isWord(take(), u"has") ? Op::NotHas : Op::NotIn;
        Q_UNUSED(field);
        return problemAt(token.kind == Token::Kind::End ? fieldColumn : token.column,
                         RunQuery::tr("expected an operator (=, !=, <, <=, >, >=, ~, !~, has, "
                                      "in) after the field, found %1")
                             .arg(found(token)));
    }

    static Result<Literal> literalOf(const Token &token) {
        Literal literal;
        const QString &text = token.text;
        static const QRegularExpression duration(
            uR"(^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(ms|s|min|m|h|d|w)$)"_s);
        if (const auto match = duration.match(text); match.hasMatch()) {
            static const QHash<QString, double> seconds{
                {u"ms"_s, 0.001}, {u"s"_s, 1},     {u"min"_s, 60},  {u"m"_s, 60},
                {u"h"_s, 3600},   {u"d"_s, 86400}, {u"w"_s, 604800}};
            literal.kind = Literal::Kind::Number;
            literal.number =
                QLocale::c().toDouble(match.captured(1)) * seconds.value(match.captured(2));
            return literal;
        }
        bool ok = false;
        literal.number = QLocale::c().toDouble(text, &ok);
        if (ok) {
            literal.kind = Literal::Kind::Number;
            return literal;
        }
        const QString lower = text.toLower();
        if (lower == u"inf"_s || lower == u"+inf"_s || lower == u"-inf"_s) {
            literal.kind = Literal::Kind::Number;
            literal.number = lower.startsWith(u'-') ? -std::numeric_limits<double>::infinity()
                                                    : std::numeric_limits<double>::infinity();
            return literal;
        }
        if (lower == u"nan"_s || lower == u"+nan"_s || lower == u"-nan"_s) {
            literal.kind = Literal::Kind::Nan;
            return literal;
        }
        QDateTime when;
        if (text.size() == 10)
            when = QDate::fromString(text, Qt::ISODate).startOfDay();
        else
            when = QDateTime::fromString(text, Qt::ISODate);
        if (when.isValid()) {
            literal.kind = Literal::Kind::Number;
            literal.number = double(when.toMSecsSinceEpoch()) / 1000;
            return literal;
        }
        return problemAt(token.column,
                         RunQuery::tr("“%1” is not a number, a duration (90s, 5m, 2h, 7d, 1w) or "
                                      "a date (2026-11-20, 2026-11-20T13:00)")
                             .arg(text));
    }

    Result<Literal> parseValue() {
        auto value = readValue();
        if (value)
            value.value().raw = m_tokens[m_at - 1 - (value->kind == Literal::Kind::Ago)].text;
        return value;
    }

    Result<Literal> readValue() {
        const Token &token = take();
        Literal literal;
        switch (token.kind) {
        case Token::Kind::Text:
            literal.text = token.text;
            literal.number = QLocale::c().toDouble(token.text.trimmed(), &literal.numeric);
            return literal;
        case Token::Kind::Literal: {
            auto read = literalOf(token);
            if (read && read->kind == Literal::Kind::Number && isWord(peek(), u"ago")) {
                take();
                read.value().kind = Literal::Kind::Ago;
            }
            return read;
        }
        case Token::Kind::Word: {
            const QString lower = token.text.toLower();
            if (lower == u"true"_s || lower == u"false"_s) {
                literal.kind = Literal::Kind::Bool;
                literal.boolean = lower == u"true"_s;
            } else if (lower == u"null"_s) {
                literal.kind = Literal::Kind::Null;
            } else if (lower == u"nan"_s) {
                literal.kind = Literal::Kind::Nan;
            } else if (lower == u"inf"_s) {
                literal.kind = Literal::Kind::Number;
                literal.number = std::numeric_limits<double>::infinity();
            } else if (lower == u"now"_s) {
                literal.kind = Literal::Kind::Now;
            } else if (isAnyKeyword(token.text)) {
                break;
            } else {
                literal.text = token.text; // a bare word: running, adam
            }
            return literal;
        }
        default:
            break;
        }
        return problemAt(token.column,
                         RunQuery::tr("expected a value (a number, \"text\", a word, a date…), "
                                      "found %1")
                             .arg(found(token)));
    }

    Parsed parseComparison() {
        const qsizetype column = peek().column;
        auto field = parseField();
        if (!field)
            return field.failure();
        auto op = parseOperator(*field, column);
        if (!op)
            return op.failure();
        auto node = std::make_shared<Node>();
        node->field = *field;
        node->op = *op;
        if (*op == Op::In || *op == Op::NotIn) {
            if (peek().kind != Token::Kind::Open)
                return problemAt(peek().column,
                                 RunQuery::tr("expected “(” and a list of values after “in”, "
                                              "found %1")
                                     .arg(found(peek())));
            take();
            do {
                auto value = parseValue();
                if (!value)
                    return value.failure();
                node->values.push_back(*value);
            } while (peek().kind == Token::Kind::Comma && take().kind == Token::Kind::Comma);
            if (peek().kind != Token::Kind::Close)
                return problemAt(peek().column,
                                 RunQuery::tr("expected “,” or “)”, found %1").arg(found(peek())));
            take();
            return std::shared_ptr<const Node>(node);
        }
        const Token &valueToken = peek();
        const qsizetype valueColumn =
            valueToken.column + (valueToken.kind == Token::Kind::Text ? 1 : 0);
        auto value = parseValue();
        if (!value)
            return value.failure();
        node->values.push_back(*value);
        if (*op == Op::Match || *op == Op::NotMatch) {
            // Bounded: a pattern that backtracks without end gives up (and does not match).
            node->pattern = QRegularExpression(u"(*LIMIT_MATCH=100000)"_s + value->raw,
                                               QRegularExpression::CaseInsensitiveOption |
                                                   QRegularExpression::UseUnicodePropertiesOption);
            if (!node->pattern.isValid())
                return problemAt(
                    valueColumn + std::max<qsizetype>(0, node->pattern.patternErrorOffset() - 21),
                    RunQuery::tr("not a regular expression: %1").arg(node->pattern.errorString()));
            node->pattern.optimize();
        }
        return std::shared_ptr<const Node>(node);
    }

    std::vector<Token> m_tokens;
    std::size_t m_at = 0;
    int m_depth = 0;
};

// ---- Comparing ----

// A field's value in one run.
struct Datum {
    enum class Kind { Missing, Null, Number, Text, Bool, List, Object };
    Kind kind = Kind::Missing;
    double number = 0;
    QString text;
    bool boolean = false;
    QJsonArray list;
    QJsonObject object;

    static Datum of(double number) {
        Datum d;
        d.kind = Kind::Number;
        d.number = number;
        return d;
    }
    static Datum of(const QString &text) { // empty: missing (no host, no sweep)
        Datum d;
        if (!text.isEmpty()) {
            d.kind = Kind::Text;
            d.text = text;
        }
        return d;
    }
    static Datum of(const std::optional<double> &number) { return number ? of(*number) : Datum{}; }
    static Datum of(const QJsonValue &json) {
        Datum d;
        switch (json.type()) {
        case QJsonValue::Null:
            d.kind = Kind::Null;
            break;
        case QJsonValue::Double:
            d.kind = Kind::Number;
            d.number = json.toDouble();
            break;
        case QJsonValue::String:
            d.kind = Kind::Text;
            d.text = json.toString();
            break;
        case QJsonValue::Bool:
            d.kind = Kind::Bool;
            d.boolean = json.toBool();
            break;
        case QJsonValue::Array:
            d.kind = Kind::List;
            d.list = json.toArray();
            break;
        case QJsonValue::Object:
            d.kind = Kind::Object;
            d.object = json.toObject();
            break;
        case QJsonValue::Undefined:
            break;
        }
        return d;
    }

    // As a number: a number, or a text that reads as one ("1e-3" from an argument parser).
    std::optional<double> asNumber() const {
        if (kind == Kind::Number)
            return number;
        if (kind == Kind::Text) {
            bool ok = false;
            const double read = QLocale::c().toDouble(QStringView(text).trimmed(), &ok);
            if (ok)
                return read;
        }
        return std::nullopt;
    }
    QString asText() const {
        switch (kind) {
        case Kind::Number:
            return QString::number(number, 'g', QLocale::FloatingPointShortest);
        case Kind::Text:
            return text;
        case Kind::Bool:
            return boolean ? u"true"_s : u"false"_s;
        case Kind::Null:
            return u"null"_s;
        case Kind::List:
            return QString::fromUtf8(QJsonDocument(list).toJson(QJsonDocument::Compact));
        case Kind::Object:
            return QString::fromUtf8(QJsonDocument(object).toJson(QJsonDocument::Compact));
        case Kind::Missing:
            break;
        }
        return {};
    }
};

std::optional<double> numberOf(const Literal &literal, double now) {
    switch (literal.kind) {
    case Literal::Kind::Number:
        return literal.number;
    case Literal::Kind::Now:
        return now;
    case Literal::Kind::Ago:
        return now - literal.number;
    case Literal::Kind::Text:
        return literal.numeric ? std::optional<double>(literal.number) : std::nullopt;
    default:
        return std::nullopt;
    }
}

QString textOf(const Literal &literal, double now) {
    switch (literal.kind) {
    case Literal::Kind::Text:
        return literal.text;
    case Literal::Kind::Bool:
        return literal.boolean ? u"true"_s : u"false"_s;
    case Literal::Kind::Null:
        return u"null"_s;
    case Literal::Kind::Nan:
        return u"nan"_s;
    default:
        return Datum::of(*numberOf(literal, now)).asText();
    }
}

bool equal(const Datum &datum, const Literal &literal, double now) {
    if (literal.kind == Literal::Kind::Null)
        return datum.kind == Datum::Kind::Missing || datum.kind == Datum::Kind::Null;
    if (datum.kind == Datum::Kind::Missing || datum.kind == Datum::Kind::Null)
        return false;
    if (literal.kind == Literal::Kind::Nan) {
        const auto number = datum.asNumber();
        return number && std::isnan(*number);
    }
    if (datum.kind == Datum::Kind::List || datum.kind == Datum::Kind::Object)
        return false;
    const auto number = datum.asNumber();
    if (const auto wanted = numberOf(literal, now); number && wanted)
        return *number == *wanted;
    if (literal.kind != Literal::Kind::Text && literal.kind != Literal::Kind::Bool)
        return false;
    return datum.asText().compare(textOf(literal, now), Qt::CaseInsensitive) == 0;
}

bool ordered(const Datum &datum, Op op, const Literal &literal, double now) {
    int order = 0;
    const auto number = datum.asNumber();
    if (const auto wanted = numberOf(literal, now); number && wanted) {
        if (std::isnan(*number) || std::isnan(*wanted))
            return false;
        order = *number < *wanted ? -1 : *number > *wanted ? 1 : 0;
    } else if (datum.kind == Datum::Kind::Text && literal.kind == Literal::Kind::Text) {
        order = datum.text.compare(literal.text, Qt::CaseInsensitive);
    } else {
        return false;
    }
    switch (op) {
    case Op::Less:
        return order < 0;
    case Op::LessEqual:
        return order <= 0;
    case Op::Greater:
        return order > 0;
    default:
        return order >= 0;
    }
}

bool matchesPattern(const Datum &datum, const QRegularExpression &pattern) {
    if (datum.kind == Datum::Kind::Missing || datum.kind == Datum::Kind::Null)
        return false;
    if (datum.kind == Datum::Kind::List)
        return std::any_of(datum.list.begin(), datum.list.end(), [&pattern](const QJsonValue &v) {
            return matchesPattern(Datum::of(v), pattern);
        });
    return pattern.match(datum.asText()).hasMatch();
}

bool has(const Datum &datum, const Literal &literal, double now) {
    switch (datum.kind) {
    case Datum::Kind::List:
        return std::any_of(datum.list.begin(), datum.list.end(),
                           [&](const QJsonValue &v) { return equal(Datum::of(v), literal, now); });
    case Datum::Kind::Text: // the part as typed: "has 007" looks for 007
        return datum.text.contains(literal.raw, Qt::CaseInsensitive);
    case Datum::Kind::Object:
        return datum.object.contains(literal.raw);
    default:
        return false;
    }
}

// The member of RunInfo that an object field reads.
QJsonObject RunInfo::*objectOf(Field::Kind kind) {
    switch (kind) {
    case Field::Kind::Code:
        return &RunInfo::code;
    case Field::Kind::Environment:
        return &RunInfo::environment;
    case Field::Kind::ForkedFrom:
        return &RunInfo::forkedFrom;
    default:
        return &RunInfo::config;
    }
}

Datum valueOf(const Field &field, const RunQuery::Run &run, double now) {
    const RunInfo &info = run.info();
    switch (field.kind) {
    case Field::Kind::Name:
        return Datum::of(info.name);
    case Field::Kind::Status:
        return Datum::of(info.status);
    case Field::Kind::Host:
        return Datum::of(info.host);
    case Field::Kind::Sweep:
        return Datum::of(info.sweep);
    case Field::Kind::Note:
        return info.note ? Datum::of(*info.note) : Datum{};
    case Field::Kind::Tags: {
        Datum d;
        if (info.tags) {
            d.kind = Datum::Kind::List;
            d.list = QJsonArray::fromStringList(*info.tags);
        }
        return d;
    }
    case Field::Kind::Start:
        return Datum::of(info.start);
    case Field::Kind::End:
        return Datum::of(info.end);
    case Field::Kind::LastSeen:
        return Datum::of(info.lastSeen);
    case Field::Kind::Duration: {
        if (!info.start)
            return {};
        // Ended: to its end, or to when it was last heard; running: to now.
        const std::optional<double> until = info.end        ? info.end
                                            : !info.ended() ? std::optional<double>(now)
                                                            : info.lastSeen;
        return until ? Datum::of(*until - *info.start) : Datum{};
    }
    case Field::Kind::Archived: {
        Datum d;
        d.kind = Datum::Kind::Bool;
        d.boolean = info.archived.value_or(false);
        return d;
    }
    case Field::Kind::Config:
    case Field::Kind::Code:
    case Field::Kind::Environment:
    case Field::Kind::ForkedFrom:
        return Datum::of(run.valueAt(objectOf(field.kind), field.key));
    case Field::Kind::Metric:
        break;
    }
    const auto metric = run.metric(field.key);
    if (!metric)
        return {};
    switch (field.of) {
    case Field::Of::Count:
        return Datum::of(double(metric->count));
    case Field::Of::Step:
        return Datum::of(metric->last.step);
    case Field::Of::Last:
        return Datum::of(metric->last.value);
    case Field::Of::Min:
        return Datum::of(metric->value(MetricStatistic::Min, field.key));
    case Field::Of::Max:
        return Datum::of(metric->value(MetricStatistic::Max, field.key));
    case Field::Of::Best:
        return Datum::of(metric->value(MetricStatistic::Best, field.key));
    }
    return {};
}

bool holds(const Node &node, const RunQuery::Run &run, double now) {
    switch (node.kind) {
    case Node::Kind::And:
        return std::all_of(node.children.begin(), node.children.end(),
                           [&](const auto &child) { return holds(*child, run, now); });
    case Node::Kind::Or:
        return std::any_of(node.children.begin(), node.children.end(),
                           [&](const auto &child) { return holds(*child, run, now); });
    case Node::Kind::Not:
        return !holds(*node.children.front(), run, now);
    case Node::Kind::Compare:
        break;
    }
    const Datum datum = valueOf(node.field, run, now);
    const Literal &value = node.values.front();
    const auto equalsAny = [&] {
        return std::any_of(node.values.begin(), node.values.end(),
                           [&](const Literal &v) { return equal(datum, v, now); });
    };
    switch (node.op) {
    case Op::Equal:
        return equal(datum, value, now);
    case Op::NotEqual:
        return !equal(datum, value, now);
    case Op::Less:
    case Op::LessEqual:
    case Op::Greater:
    case Op::GreaterEqual:
        return ordered(datum, node.op, value, now);
    case Op::Match:
        return matchesPattern(datum, node.pattern);
    case Op::NotMatch:
        return !matchesPattern(datum, node.pattern);
    case Op::Has:
        return has(datum, value, now);
    case Op::NotHas:
        return !has(datum, value, now);
    case Op::In:
        return equalsAny();
    case Op::NotIn:
        return !equalsAny();
    }
    return false;
}

void collectObjectKeys(const Node &node, std::vector<RunQuery::ObjectKey> *out) {
    for (const auto &child : node.children)
        collectObjectKeys(*child, out);
    if (node.kind != Node::Kind::Compare)
        return;
    switch (node.field.kind) {
    case Field::Kind::Config:
    case Field::Kind::Code:
    case Field::Kind::Environment:
    case Field::Kind::ForkedFrom:
        if (RunQuery::ObjectKey key{objectOf(node.field.kind), node.field.key};
            std::find(out->begin(), out->end(), key) == out->end())
            out->push_back(std::move(key));
        break;
    default:
        break;
    }
}

void collectMetrics(const Node &node, bool rangedOnly, QStringList *out) {
    for (const auto &child : node.children)
        collectMetrics(*child, rangedOnly, out);
    if (node.kind != Node::Kind::Compare || node.field.kind != Field::Kind::Metric)
        return;
    const bool ranged = node.field.of == Field::Of::Min || node.field.of == Field::Of::Max ||
                        node.field.of == Field::Of::Best;
    if ((!rangedOnly || ranged) && !out->contains(node.field.key))
        out->append(node.field.key);
}

// A run as /runs lists it.
class SummaryRun final : public RunQuery::Run {
public:
    explicit SummaryRun(const RunSummary &run)
        : m_run(run) {}
    const RunInfo &info() const override { return m_run.info; }
    std::optional<MetricSummary> metric(const QString &name) const override {
        const auto found = m_run.metrics.constFind(name);
        return found == m_run.metrics.constEnd() ? std::nullopt
                                                 : std::optional<MetricSummary>(*found);
    }

private:
    const RunSummary &m_run;
};

} // namespace

Result<RunQuery> RunQuery::parse(const QString &text) {
    if (text.size() > kLongestQuery)
        return fail(RunQuery::tr("the query is %1 characters long, more than %2")
                        .arg(text.size())
                        .arg(kLongestQuery),
                    ErrorCode::InvalidInput);
    auto tokens = tokenize(text);
    if (!tokens)
        return tokens.failure();
    if (tokens->size() == 1)
        return fail(RunQuery::tr("the query is empty"), ErrorCode::InvalidInput);
    Parser parser(std::move(tokens).value());
    auto root = parser.parseWhole();
    if (!root)
        return root.failure();
    RunQuery query;
    query.m_root = *root;
    return query;
}

bool RunQuery::looksLikeQuery(const QString &text) {
    static const QRegularExpression operators(u"[<>=~!()&|]"_s);
    static const QRegularExpression keyword(u"\\S\\s+(and|or|not|has|in)\\s+\\S|^\\s*not\\s"_s,
                                            QRegularExpression::CaseInsensitiveOption);
    return operators.match(text).hasMatch() || keyword.match(text).hasMatch();
}

bool RunQuery::matches(const Run &run, double now) const {
    return !m_root || holds(*m_root, run, now);
}

bool RunQuery::matches(const RunSummary &run, double now) const {
    return matches(SummaryRun(run), now);
}

QStringList RunQuery::metrics() const {
    QStringList out;
    if (m_root)
        collectMetrics(*m_root, false, &out);
    return out;
}

std::vector<RunQuery::ObjectKey> RunQuery::objectKeys() const {
    std::vector<ObjectKey> out;
    if (m_root)
        collectObjectKeys(*m_root, &out);
    return out;
}

QJsonValue RunQuery::lookUp(const QJsonObject &object, const QString &key) {
    if (const auto found = object.constFind(key); found != object.constEnd())
        return *found;
    // Each dot in turn: {"model.enc": {"layers": 4}} is found by config.model.enc.layers.
    for (qsizetype dot = key.indexOf(u'.'); dot > 0; dot = key.indexOf(u'.', dot + 1)) {
        const QJsonValue inner = object.value(QStringView(key).left(dot));
        if (!inner.isObject())
            continue;
        if (QJsonValue found = lookUp(inner.toObject(), key.mid(dot + 1)); !found.isUndefined())
            return found;
    }
    return QJsonValue::Undefined;
}

QStringList RunQuery::rangedMetrics() const {
    QStringList out;
    if (m_root)
        collectMetrics(*m_root, true, &out);
    return out;
}

QStringList RunQuery::vocabulary() {
    QStringList words;
    for (const auto &[name, kind] : fixedFields())
        words << name;
    for (const auto &[prefix, kind] : objectFields())
        words << prefix;
    for (const auto &[name, of] : metricFunctions())
        words << name + u'(';
    words << u"and"_s << u"or"_s << u"not"_s << u"has"_s << u"in"_s << u"ago"_s << u"now"_s
          << u"true"_s << u"false"_s << u"null"_s << u"nan"_s;
    return words;
}

} // namespace sb
