# One INTERFACE target carries the warnings and strict Qt defines every Signalbox target builds with.
add_library(signalbox_options INTERFACE)
target_compile_options(signalbox_options INTERFACE -Wall -Wextra -Wpedantic -Wold-style-cast -Wshadow
  # GCC 12 warns about members left out of designated initializers; they take their defaults.
  -Wno-missing-field-initializers -Wnon-virtual-dtor)
target_compile_definitions(signalbox_options INTERFACE
  QT_NO_CAST_FROM_ASCII
  QT_NO_CAST_TO_ASCII
  QT_NO_CONTEXTLESS_CONNECT
  QT_NO_URL_CAST_FROM_STRING
  QT_USE_QSTRINGBUILDER
  QT_NO_KEYWORDS
  SIGNALBOX_VERSION="${PROJECT_VERSION}"
  SIGNALBOX_APP_ID="${SIGNALBOX_APP_ID}")
if(DEFINED ENV{CI} OR SIGNALBOX_WERROR)
  target_compile_options(signalbox_options INTERFACE -Werror)
endif()
