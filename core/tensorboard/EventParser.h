#pragma once

#include <QByteArrayView>

#include <cstdint>
#include <vector>

namespace sb {

// One tensorflow.Event record, decoded straight from the protobuf wire format: its scalars
// read, every other kind kept as a view of its payload for Summaries.h to decode on demand
// (only what TensorBoard's dashboards read; everything else is skipped unread):
//   Event { double wall_time = 1; int64 step = 2; Summary summary = 5; SessionLog session_log = 7;
//           ... }
//   SessionLog { SessionStatus status = 1 (START = 1: a restart, see sessionStart); ... }
//   Summary { repeated Value value = 1; }
//   Value { string tag = 1; float simple_value = 2; Image image = 4; HistogramProto histo = 5;
//           Audio audio = 6; TensorProto tensor = 8; SummaryMetadata metadata = 9; ... }
//   TensorProto { DataType dtype = 1; TensorShapeProto tensor_shape = 2; bytes tensor_content = 4;
//                 repeated float float_val = 5; repeated double double_val = 6; ... }
//   SummaryMetadata { PluginData plugin_data = 1 { string plugin_name = 1; bytes content = 2; };
//                     DataClass data_class = 4; }
// The views point into the record.
struct TfEvent {
    double wallTime = 0;
    std::int64_t step = 0;
    struct Value {
        QByteArrayView tag;
        double value = 0;
        bool isScalar = false;        // simple_value, or a rank-0 DT_FLOAT/DT_DOUBLE tensor
        QByteArrayView plugin;        // metadata's plugin_name, when this record carries metadata
        bool scalarClass = false;     // metadata's data_class is DATA_CLASS_SCALAR
        QByteArrayView pluginContent; // metadata's plugin_data.content (hparams keep theirs here)
        QByteArrayView image;         // TF1 Summary.Image
        QByteArrayView histo;         // TF1 HistogramProto
        QByteArrayView audio;         // TF1 Summary.Audio
        QByteArrayView tensor;        // TensorProto, the TF2 form of every kind
    };
    std::vector<Value> values;
    // A SessionLog.START: the writer restarted (from a checkpoint) at `step`, and TensorBoard
    // drops what the run logged earlier at this step or later.
    bool sessionStart = false;
};

// Decodes `record` into `out` (its vectors reused); false for a record that is not a valid
// Event message, which leaves nothing half-read behind that matters.
bool parseEvent(QByteArrayView record, TfEvent *out);

} // namespace sb
