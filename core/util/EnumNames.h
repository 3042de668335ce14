#pragma once

#include <QCoreApplication>
#include <QString>
#include <QStringView>

#include <array>
#include <cstddef>

// An enum's names, written once as a table of {value, name}: the name stored, sent or shown for
// each value, and the value a name stands for. Names are Latin-1 literals; those shown to people
// are marked with QT_TRANSLATE_NOOP so lupdate finds them.
namespace sb {

template <typename E> struct EnumName {
    E value;
    const char *name;
};

template <typename E, std::size_t N> using EnumNames = std::array<EnumName<E>, N>;

// The name of `value`, or an empty string for a value the table lacks.
template <typename E, std::size_t N> QString nameOf(const EnumNames<E, N> &table, E value) {
    for (const EnumName<E> &entry : table) {
        if (entry.value == value)
            return QString::fromLatin1(entry.name);
    }
    return {};
}

// The name of `value` in the user's language (`context` as the QT_TRANSLATE_NOOP marks name it).
template <typename E, std::size_t N>
QString translatedNameOf(const EnumNames<E, N> &table, E value, const char *context) {
    for (const EnumName<E> &entry : table) {
        if (entry.value == value)
            return QCoreApplication::translate(context, entry.name);
    }
    return {};
}

// Sets `*value` to what `name` stands for; false, leaving it alone, for a name not in the table.
template <typename E, std::size_t N>
bool parseName(const EnumNames<E, N> &table, QStringView name, E *value) {
    for (const EnumName<E> &entry : table) {
        if (name == QLatin1StringView(entry.name)) {
            *value = entry.value;
            return true;
        }
    }
    return false;
}

} // namespace sb
