#pragma once

#include <QString>

#include <utility>
#include <variant>

namespace sb {

// What kind of failure, for callers that branch on it (an HTTP status, a retry).
enum class ErrorCode {
    Failed,        // anything else
    InvalidInput,  // the input was refused for its content: sending it again fails again
    StorageFailed, // the disk refused (full, read-only, I/O error): nothing was stored, retry later
    AddressInUse,  // a port to listen on is taken: another one may do
    AlreadyExists, // what was asked for is there already: nothing to do
    Unauthorized   // the peer refused the credentials: new ones may do
};

// A failure with a message written for the person reading it (UI banner or CLI stderr).
struct Error {
    QString message;
    ErrorCode code = ErrorCode::Failed;
};

// Value-or-error return type used across core instead of exceptions.
template <typename T> class [[nodiscard]] Result {
public:
    Result(T value) // NOLINT(google-explicit-constructor): implicit like std::expected
        : m_state(std::move(value)) {}
    Result(Error error) // NOLINT(google-explicit-constructor)
        : m_state(std::move(error)) {}

    bool ok() const { return m_state.index() == 0; }
    explicit operator bool() const { return ok(); }

    const T &value() const & { return std::get<0>(m_state); }
    T &value() & { return std::get<0>(m_state); }
    T &&value() && { return std::get<0>(std::move(m_state)); }
    const T *operator->() const { return &value(); }
    const T &operator*() const { return value(); }

    // The failure's message; empty for a success.
    const QString &error() const {
        static const QString none;
        return ok() ? none : std::get<1>(m_state).message;
    }
    ErrorCode errorCode() const { return ok() ? ErrorCode::Failed : std::get<1>(m_state).code; }
    // The failure as it is, to pass on from a Result of another type.
    Error failure() const { return ok() ? Error{} : std::get<1>(m_state); }

private:
    std::variant<T, Error> m_state;
};

using Status = Result<std::monostate>;

inline Status success() {
    return std::monostate{};
}
inline Error fail(QString message, ErrorCode code = ErrorCode::Failed) {
    return Error{std::move(message), code};
}

} // namespace sb
