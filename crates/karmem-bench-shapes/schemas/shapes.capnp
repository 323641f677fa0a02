# The four workloads of the shapes benchmark in Cap'n Proto's idiom.
# A struct-typed field is a pointer in Cap'n Proto, so fixed-size records
# (vertex, enchantment, update) are flat structs of scalars: a list of them
# is then one contiguous block, the closest Cap'n Proto has to an inline
# struct array.
@0xd31c2b091c97406f;

enum Level { trace @0; debug @1; info @2; warn @3; error @4; }

struct Entry {
  timestamp @0 :UInt64;
  level @1 :Level;
  service @2 :Text;
  message @3 :Text;
}

struct Log { entries @0 :List(Entry); }

struct Vertex {
  px @0 :Float32;
  py @1 :Float32;
  pz @2 :Float32;
  nx @3 :Float32;
  ny @4 :Float32;
  nz @5 :Float32;
  u @6 :Float32;
  v @7 :Float32;
}

struct Mesh {
  vertices @0 :List(Vertex);
  indices @1 :List(UInt32);
}

enum Element { none @0; fire @1; frost @2; shock @3; poison @4; }
enum QuestState { open @0; active @1; done @2; failed @3; }

struct Enchantment {
  element @0 :Element;
  power @1 :Int16;
  duration @2 :UInt32;
}

struct Item {
  id @0 :UInt32;
  name @1 :Text;
  count @2 :UInt16;
  weight @3 :Float32;
  enchantments @4 :List(Enchantment);
}

struct Step {
  description @0 :Text;
  done @1 :Bool;
  progress @2 :UInt16;
}

struct Quest {
  id @0 :UInt32;
  title @1 :Text;
  state @2 :QuestState;
  steps @3 :List(Step);
}

struct Player {
  name @0 :Text;
  level @1 :UInt16;
  hp @2 :Int32;
  gold @3 :UInt32;
  px @4 :Float32;
  py @5 :Float32;
  pz @6 :Float32;
  inventory @7 :List(Item);
}

struct Save {
  player @0 :Player;
  quests @1 :List(Quest);
}

struct Update {
  entity @0 :UInt32;
  dx @1 :Int16;
  dy @2 :Int16;
  hp @3 :Int8;
  flags @4 :UInt8;
}

struct Updates { updates @0 :List(Update); }
